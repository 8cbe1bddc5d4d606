// The dashboard through HTTP (app.request), with real Postgres and Redis: forms, cookies, roles and isolation.
import { createHash } from 'node:crypto';
import { serve } from '@hono/node-server';
import { allowLiveKeys, createApiKey, createUser, setInstallOperator, takeProviderSlot } from '@tidings/core';
import { createTestDeps, makeOrganization, waitFor } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

const deps = createTestDeps({ SIGN_IN_RATE_LIMIT: '3' });
const app = createDashboard(deps);
afterAll(() => deps.close());

const PASSWORD = 'a good long password';
let counter = 0;

async function person(role: 'owner' | 'operator' | 'member', orgId?: string) {
  counter += 1;
  const org = orgId ?? (await makeOrganization(deps)).orgId;
  const email = `p${counter}-${Date.now()}@dashboard.test`;
  await createUser(deps, { orgId: org, email, password: PASSWORD, role });
  return { orgId: org, email };
}

async function signedIn(role: 'owner' | 'operator' | 'member' = 'owner', orgId?: string) {
  const who = await person(role, orgId);
  const browser = dashboardClient(app);
  const res = await browser.signIn(who.email, PASSWORD);
  expect(res.status).toBe(303);
  await browser.get('/settings/api-keys'); // a page with forms: its CSRF token is the session's
  return { ...who, browser };
}

describe('CSRF', () => {
  it('refuses a form without the token, or with another browser’s, and changes nothing', async () => {
    const { email } = await person('owner');
    const browser = dashboardClient(app);
    await browser.get('/sign-in');
    const missing = await browser.send('POST', '/sign-in', { email, password: PASSWORD });
    expect(missing.status).toBe(403);
    expect(missing.html).toContain('This form has expired');
    expect(missing.setCookies.some((c) => c.startsWith('tidings_session='))).toBe(false);

    const other = dashboardClient(app);
    await other.get('/sign-in');
    const foreign = await browser.send('POST', '/sign-in', { _csrf: other.csrf, email, password: PASSWORD });
    expect(foreign.status).toBe(403);
  });

  it('binds the token to the session once signed in', async () => {
    const { browser, orgId } = await signedIn('owner');
    const preSessionToken = dashboardClient(app);
    await preSessionToken.get('/sign-in');
    const before = await deps.db.apiKey.count({ where: { orgId } });
    const refused = await browser.post('/settings/api-keys', { _csrf: preSessionToken.csrf, name: 'Forged', permission: 'full', mode: 'live' });
    expect(refused.status).toBe(403);
    expect(await deps.db.apiKey.count({ where: { orgId } })).toBe(before);
    const accepted = await browser.post('/settings/api-keys', { name: 'Real', permission: 'full', mode: 'live' });
    expect(accepted.status).toBe(303);
    expect(await deps.db.apiKey.count({ where: { orgId } })).toBe(before + 1);
  });
});

describe('Secure cookies', () => {
  it('are Secure when PUBLIC_DASHBOARD_URL is https, even for a request a proxy passed on as plain-http localhost', async () => {
    const httpsDeps = createTestDeps({ PUBLIC_DASHBOARD_URL: 'https://dashboard.example.com' });
    try {
      const { orgId } = await makeOrganization(httpsDeps);
      const email = `secure-${Date.now()}@dashboard.test`;
      await createUser(httpsDeps, { orgId, email, password: PASSWORD, role: 'owner' });
      const browser = dashboardClient(createDashboard(httpsDeps), 'http://localhost');
      const signIn = await browser.signIn(email, PASSWORD);
      const session = signIn.setCookies.find((c) => c.startsWith('tidings_session='))!;
      expect(session).toMatch(/; Secure/);
      expect(session).toMatch(/HttpOnly/);
      // every dashboard cookie, the sign-out's clearing one too
      await browser.get('/settings/api-keys'); // a page with forms: its CSRF token is the session's
      const signOut = await browser.post('/sign-out', {});
      expect(signOut.setCookies.filter((c) => c.startsWith('tidings_session=')).every((c) => /; Secure/.test(c))).toBe(true);
    } finally {
      await httpsDeps.close();
    }
  });
});

describe('sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie, not Secure when the configured address is http; the database keeps its hash', async () => {
    const { email } = await person('owner');
    const local = await dashboardClient(app).signIn(email, PASSWORD);
    const localCookie = local.setCookies.find((c) => c.startsWith('tidings_session='))!;
    expect(localCookie).toMatch(/HttpOnly/);
    expect(localCookie).toMatch(/SameSite=Lax/);
    expect(localCookie).not.toMatch(/Secure/);

    // the Host (or scheme) a request arrives with does not decide it
    const remote = await dashboardClient(app, 'https://dashboard.example.com').signIn(email, PASSWORD);
    const remoteCookie = remote.setCookies.find((c) => c.startsWith('tidings_session='))!;
    expect(remoteCookie).not.toMatch(/Secure/);
    expect(remoteCookie).toMatch(/HttpOnly/);

    const token = localCookie.split(';')[0]!.split('=')[1]!;
    expect(await deps.db.session.count({ where: { tokenHash: createHash('sha256').update(token).digest('hex') } })).toBe(1);
    expect(await deps.db.session.count({ where: { tokenHash: token } })).toBe(0);
  });

  it('says what is wrong with the form', async () => {
    const browser = dashboardClient(app);
    await browser.get('/sign-in');
    const empty = await browser.post('/sign-in', { email: '', password: '' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('Enter your email address.');
    expect(empty.html).toContain('Enter your password.');
  });

  it('is rate limited per email address: past the limit even the right password is refused', async () => {
    const { email } = await person('owner');
    const browser = dashboardClient(app);
    await browser.get('/sign-in');
    for (let i = 0; i < 3; i++) {
      const wrong = await browser.post('/sign-in', { email, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.html).toContain('Email or password is incorrect.');
    }
    const limited = await browser.post('/sign-in', { email, password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.html).toMatch(/Too many sign-in attempts. Try again in \d+ minutes?\./);
    expect(limited.setCookies.some((c) => c.startsWith('tidings_session='))).toBe(false);
  });

  it('is rate limited per client address too, across email addresses', async () => {
    const server = await new Promise<{ close(): void; url: string }>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve({ close: () => s.close(), url: `http://127.0.0.1:${info.port}` }));
    });
    try {
      const page = await fetch(`${server.url}/sign-in`);
      const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const attempt = async (i: number) => {
        const body = new URLSearchParams({ _csrf: csrf, email: `nobody-${i}@dashboard.test`, password: 'not the password' });
        const res = await fetch(`${server.url}/sign-in`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
        await res.arrayBuffer();
        return res.status;
      };
      const statuses = [];
      for (let i = 0; i < 16; i++) statuses.push(await attempt(i)); // the limit is 3 per email, 15 per address
      expect(statuses.slice(0, 15).every((status) => status === 401)).toBe(true);
      expect(statuses[15]).toBe(429);
    } finally {
      server.close();
    }
  });

  it('wrong passwords from one address never lock the real person out from theirs', async () => {
    const { email } = await person('owner');
    // counters of their own (a Redis prefix of their own): the other tests here count against 127.0.0.1 too
    const own = createTestDeps({ SIGN_IN_RATE_LIMIT: '3' });
    const ownApp = createDashboard(own);
    const listen = (hostname: string) =>
      new Promise<{ close(): void; url: string }>((resolve) => {
        const s = serve({ fetch: ownApp.fetch, port: 0, hostname }, (info) =>
          resolve({ close: () => s.close(), url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${info.port}` }),
        );
      });
    // the attacker comes from 127.0.0.1, the person from ::1: two client addresses, both loopback
    const [attackerSide, personSide] = await Promise.all([listen('127.0.0.1'), listen('::1')]);
    const signIn = async (base: string, password: string) => {
      const page = await fetch(`${base}/sign-in`);
      const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const body = new URLSearchParams({ _csrf: csrf, email, password });
      const res = await fetch(`${base}/sign-in`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
      await res.arrayBuffer();
      return res.status;
    };
    try {
      const guesses = [];
      for (let i = 0; i < 5; i++) guesses.push(await signIn(attackerSide.url, `guess number ${i}`));
      expect(guesses).toEqual([401, 401, 401, 429, 429]); // SIGN_IN_RATE_LIMIT is 3 here
      expect(await signIn(attackerSide.url, PASSWORD)).toBe(429);
      expect(await signIn(personSide.url, PASSWORD)).toBe(303);
    } finally {
      attackerSide.close();
      personSide.close();
      await own.close();
    }
  });

  it('returns to the page asked for, never to another site', async () => {
    const { email } = await person('owner');
    const browser = dashboardClient(app);
    await browser.get('/sign-in');
    const res = await browser.post('/sign-in', { email, password: PASSWORD, next: '//evil.example/' });
    expect(res.location).toBe('/');
  });

  it('ends with sign-out: the old cookie no longer opens anything', async () => {
    const { browser } = await signedIn('owner');
    const cookie = browser.cookies.get('tidings_session')!;
    expect((await browser.post('/sign-out')).location).toBe('/sign-in');
    const replay = dashboardClient(app);
    replay.cookies.set('tidings_session', cookie);
    expect((await replay.get('/settings/api-keys')).location).toBe('/sign-in?next=%2Fsettings%2Fapi-keys');
  });
});

describe('sign-up', () => {
  it('is closed once the install has people, and says how to be added', async () => {
    await person('owner');
    const browser = dashboardClient(app);
    const page = await browser.get('/sign-up');
    expect(page.html).toContain('Sign-up is closed');
    expect(page.html).toContain('tidings users create');
    const before = await deps.db.organization.count();
    const res = await browser.post('/sign-up', { organizationName: 'Sneaky', email: `x${Date.now()}@dashboard.test`, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(await deps.db.organization.count()).toBe(before);
  });
});

describe('API keys across organizations and roles', () => {
  it('shows only the current organization’s keys, and another organization’s key is not found', async () => {
    const mine = await signedIn('owner');
    const theirs = await makeOrganization(deps, { name: 'Other Corp' });
    const foreignKey = await createApiKey(deps, theirs.orgId, 'live', { name: 'Their secret key', permission: 'full' });

    const list = await mine.browser.get('/settings/api-keys');
    expect(list.status).toBe(200);
    expect(list.html).toContain('Default key');
    expect(list.html).not.toContain('Their secret key');
    expect(list.html).not.toContain(foreignKey.prefix);

    expect((await mine.browser.get(`/settings/api-keys/${foreignKey.id}/rotate`)).status).toBe(404);
    for (const action of ['disable', 'rotate', 'delete']) {
      const res = await mine.browser.post(`/settings/api-keys/${foreignKey.id}/${action}`);
      expect(res.status).toBe(404);
      expect(res.html).not.toContain('Their secret key');
    }
    const row = await deps.db.apiKey.findUniqueOrThrow({ where: { id: foreignKey.id } });
    expect(row).toMatchObject({ disabledAt: null, deletedAt: null, previousKeyHash: null });

    expect((await mine.browser.post('/organization', { orgId: theirs.orgId })).status).toBe(404);
    expect((await mine.browser.get('/settings/api-keys')).html).not.toContain('Their secret key');
  });

  it('an organization created for testing is offered test keys only, and refused a live one, until allow-live', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const { browser } = await signedIn('owner', orgId);
    const page = await browser.get('/settings/api-keys');
    expect(page.html).toContain('This organization was created for testing: it gets test keys only.');
    expect(page.html).not.toContain('value="live"');

    const refused = await browser.post('/settings/api-keys', { name: 'Sneaky live', permission: 'full', mode: 'live' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('This organization was created for testing: live keys are not allowed until an operator allows them with &quot;tidings orgs allow-live');
    expect(await deps.db.apiKey.count({ where: { orgId, mode: 'live' } })).toBe(0);
    expect((await browser.post('/settings/api-keys', { name: 'Sandbox', permission: 'full', mode: 'test' })).status).toBe(303);

    await allowLiveKeys(deps, orgId);
    expect((await browser.get('/settings/api-keys')).html).toContain('value="live"');
    expect((await browser.post('/settings/api-keys', { name: 'Now live', permission: 'full', mode: 'live' })).status).toBe(303);
    expect(await deps.db.apiKey.count({ where: { orgId, mode: 'live' } })).toBe(1);
  });

  it('shows the SMTP settings next to the keys, from configuration: host, both ports, any user, a key as the password', async () => {
    const { browser } = await signedIn('member');
    const { html } = await browser.get('/settings/api-keys');
    const { publicHost, port, tlsPort } = deps.config.smtpSubmission;
    expect(html).toContain('SMTP settings');
    expect(html).toContain(`<code>${publicHost}</code>`);
    expect(html).toContain(`<code>${port}</code> with STARTTLS, or <code>${tlsPort}</code> with TLS`);
    expect(html).toContain('an API key: <code>sk_live_…</code>');
  });

  it('lets a member read the keys but not change them', async () => {
    const owner = await signedIn('owner');
    const member = await signedIn('member', owner.orgId);
    const page = await member.browser.get('/settings/api-keys');
    expect(page.html).toContain('Default key');
    expect(page.html).not.toContain('Create API key');
    const key = await deps.db.apiKey.findFirstOrThrow({ where: { orgId: owner.orgId } });
    expect((await member.browser.post('/settings/api-keys', { name: 'Nope', permission: 'full', mode: 'live' })).status).toBe(403);
    expect((await member.browser.post(`/settings/api-keys/${key.id}/disable`)).status).toBe(403);
    expect(await deps.db.apiKey.count({ where: { orgId: owner.orgId, name: 'Nope' } })).toBe(0);
    expect((await deps.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).disabledAt).toBeNull();
  });

  it('rotates "immediately": the old secret stops at once, and the new one is revealed a single time', async () => {
    const { browser, orgId } = await signedIn('operator');
    const key = await deps.db.apiKey.findFirstOrThrow({ where: { orgId } });
    const rotated = await browser.post(`/settings/api-keys/${key.id}/rotate`, { immediately: 'true' });
    expect(rotated.location).toBe('/settings/api-keys');
    const row = await deps.db.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.previousKeyHash).toBeNull();
    expect(row.keyHash).not.toBe(key.keyHash);

    const shown = await browser.get('/settings/api-keys');
    const revealed = /id="new-key" readonly="" value="(sk_live_[^"]+)"/.exec(shown.html)?.[1];
    expect(revealed && createHash('sha256').update(revealed).digest('hex')).toBe(row.keyHash);
    expect((await browser.get('/settings/api-keys')).html).not.toContain(revealed);
  });

  it('answers a bad create form with the field named, and creates nothing', async () => {
    const { browser, orgId } = await signedIn('operator');
    const before = await deps.db.apiKey.count({ where: { orgId } });
    const res = await browser.post('/settings/api-keys', { name: '   ', permission: 'full', mode: 'live' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('Give the key a name (up to 100 characters).');
    const odd = await browser.post('/settings/api-keys', { name: 'ok', permission: 'root', mode: 'live' });
    expect(odd.status).toBe(400);
    expect(await deps.db.apiKey.count({ where: { orgId } })).toBe(before);
  });
});

describe('the mode of a new key', () => {
  const selectedMode = (html: string) => /<option value="(live|test)" selected="">/.exec(html)?.[1];

  it('is Test by default without a live provider, saying why; Live once a provider has credentials', async () => {
    const { browser } = await signedIn('owner');
    const page = await browser.get('/settings/api-keys');
    expect(selectedMode(page.html)).toBe('test');
    expect(page.html).toContain('No live provider is configured: a live key needs a verified domain and a provider&#39;s credentials to send.');

    const withResend = createTestDeps({ RESEND_API_KEY: 're_configured' });
    try {
      const owner = await makeOrganization(withResend);
      const email = `live-${Date.now()}@dashboard.test`;
      await createUser(withResend, { orgId: owner.orgId, email, password: PASSWORD, role: 'owner' });
      const client = dashboardClient(createDashboard(withResend));
      await client.signIn(email, PASSWORD);
      const livePage = await client.get('/settings/api-keys');
      expect(selectedMode(livePage.html)).toBe('live');
      expect(livePage.html).not.toContain('No live provider is configured');
    } finally {
      await withResend.close();
    }
  });
});

describe('Bull Board', () => {
  /** A person the command line made an install operator (a member of some organization, like anyone signing in). */
  async function installOperator() {
    const who = await signedIn('member');
    await setInstallOperator(deps, who.email, true);
    return who;
  }
  // every kind of action Bull Board offers, on a queue every organization shares
  const ACTIONS = [
    ['PUT', '/admin/queues/api/queues/webhooks/pause'],
    ['PUT', '/admin/queues/api/queues/webhooks/resume'],
    ['PUT', '/admin/queues/api/queues/email/retry/failed'],
    ['PUT', '/admin/queues/api/queues/email/clean/completed'],
    ['PUT', '/admin/queues/api/queues/email/empty'],
    ['PUT', '/admin/queues/api/queues/email/promote'],
    ['POST', '/admin/queues/api/queues/email/add'],
    ['PUT', '/admin/queues/api/queues/email/job-1/clean'],
    ['PUT', '/admin/queues/api/queues/email/job-1/retry/failed'],
    ['PUT', '/admin/queues/api/queues/email/job-1/promote'],
    ['GET', '/admin/queues/api/queues/email/job-1'],
    ['GET', '/admin/queues/api/queues/email/job-1/logs'],
    ['GET', '/admin/queues/api/redis/stats'],
  ] as const;

  it("is for install operators only: an organization's owner and operator get 403 for every page and action, and nothing changes", async () => {
    const visitor = dashboardClient(app);
    expect((await visitor.get('/admin/queues')).location).toBe('/sign-in?next=%2Fadmin%2Fqueues');
    expect((await visitor.get('/admin/queues/api/queues')).status).toBe(401);

    for (const role of ['owner', 'operator', 'member'] as const) {
      const person = await signedIn(role);
      // in a fresh test database this may be the install's first account, an operator by that: not the case tested here
      await setInstallOperator(deps, person.email, false);
      for (const path of ['/admin/queues', '/admin/queues/queue/webhooks', '/admin/queues/api/queues', '/admin/queues/static/js/main.js']) {
        expect([role, path, (await person.browser.get(path)).status]).toEqual([role, path, 403]);
      }
      for (const [method, path] of ACTIONS) {
        const res = await person.browser.send(method, path, undefined, { 'sec-fetch-site': 'same-origin' });
        expect([role, method, path, res.status]).toEqual([role, method, path, 403]);
      }
      expect((await person.browser.get('/settings/api-keys')).html).not.toContain('href="/admin/queues"');
    }
    expect(await deps.queues.webhooks.isPaused()).toBe(false);
  });

  it('serves install operators every queue, refusing a cross-site action; revoking takes it away at once', async () => {
    const operator = await installOperator();
    expect((await operator.browser.get('/settings/api-keys')).html).toContain('href="/admin/queues"');
    const queues = await operator.browser.get('/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    expect(
      JSON.parse(queues.html)
        .queues.map((q: { name: string }) => q.name)
        .sort(),
    ).toEqual(['broadcasts', 'email', 'email-bulk', 'maintenance', 'segment-counts', 'sms', 'sms-bulk', 'webhooks', 'webhooks-bulk']);
    const crossSite = await operator.browser.send('PUT', '/admin/queues/api/queues/email/retry/failed', undefined, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);

    await setInstallOperator(deps, operator.email, false);
    expect((await operator.browser.get('/admin/queues/api/queues')).status).toBe(403);
  });

  it('serves its page with no outside fonts or scripts, a policy keeping it to this server, and a way back', async () => {
    const operator = await installOperator();
    for (const path of ['/admin/queues', '/admin/queues/queue/email']) {
      const page = await operator.browser.get(path);
      expect(page.status).toBe(200);
      expect(page.html).toContain('static/js/main');
      expect(page.html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(page.html.split('class="tidings-back"')).toHaveLength(2);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
      expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    }
    const api = await operator.browser.get('/admin/queues/api/queues');
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it("shows each paced provider account's rate, use and deferrals on its page", async () => {
    const operator = await installOperator();
    // a long code at 1 a second that took two sends just now: the second was deferred to the next slot
    const number = { name: 'telnyx:+16285550142', provider: 'telnyx', ratePerSecond: 1, reason: 'sender_rate_limit' } as const;
    for (let i = 0; i < 2; i++) await takeProviderSlot(deps, number, 'transactional', { reserve: true });
    const row = async () => (await operator.browser.get('/admin/queues')).html.match(/<tr data-account="telnyx \+16285550142">.*?<\/tr>/)?.[0];
    const shown = await waitFor(row, 10_000, 'the number on the Queues page');
    expect(shown).toMatch(/<td>1\/s<\/td><td>0\.[12]\d*\/s<\/td><td>0\.\d+\/s<\/td>/);
    const page = (await operator.browser.get('/admin/queues')).html;
    expect(page.split('class="tidings-pace"')).toHaveLength(2);
    expect(page).toContain('<th scope="col">Rate</th><th scope="col">Use</th><th scope="col">Deferred</th>');
  });
});

describe('favicon', () => {
  it('is served from the app, at /favicon.ico and as an SVG the pages link', async () => {
    const ico = await app.request('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    expect([...new Uint8Array(await ico.arrayBuffer()).slice(0, 4)]).toEqual([0, 0, 1, 0]);
    const svg = await app.request('/assets/favicon.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect((await dashboardClient(app).get('/sign-in')).html).toContain('<link rel="icon" href="/assets/favicon.svg"');
  });
});
