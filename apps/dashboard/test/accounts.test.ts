// Forgot password, password change, two-factor sign-in and the organization's requirement, through the dashboard's
// HTTP app over real Postgres and Redis. The clock is the deps' own, moved on by the tests: a TOTP code belongs to a
// 30-second step, and the app refuses one whose step it has already seen.
import { createUser, deleteExpiredSessions } from '@tidings/core';
import { createTestDeps, makeOrganization, waitFor } from '@tidings/testing';
import { Secret, TOTP } from 'otpauth';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

const deps = createTestDeps();
let clock = Date.now();
deps.now = () => new Date(clock);
const app = createDashboard(deps);
afterAll(() => deps.close());

const PASSWORD = 'a good long password';
let counter = 0;

async function person(options: { orgId?: string; role?: 'owner' | 'operator' | 'member' } = {}) {
  counter += 1;
  const orgId = options.orgId ?? (await makeOrganization(deps, { mode: 'test' })).orgId;
  const email = `person-${counter}-${Date.now()}@accounts.test`;
  const { user } = await createUser(deps, { orgId, email, password: PASSWORD, role: options.role ?? 'owner' });
  return { orgId, user, email };
}

async function signedIn(email: string, password = PASSWORD) {
  const browser = dashboardClient(app);
  const res = await browser.signIn(email, password);
  return { browser, res };
}

/** The link of the `nth` reset email sent to `email` (the message Tidings itself sent, in the organization). */
async function resetLinkFor(email: string, nth: number): Promise<string> {
  const where = { to: email, tags: { has: 'tidings-password-reset' } };
  await waitFor(async () => (await deps.db.message.count({ where })) >= nth, 10_000, `reset email ${nth} to ${email}`);
  const message = (await deps.db.message.findMany({ where, orderBy: { id: 'asc' } }))[nth - 1]!;
  return new URL(/https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(message.text ?? '')![0]).pathname;
}

const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

describe('forgot password', () => {
  it('answers the same for an address with an account and one without, and emails only the first, through its organization', async () => {
    const { email, orgId } = await person();
    const browser = dashboardClient(app);
    expect((await browser.get('/sign-in')).html).toContain('href="/forgot-password"');
    await browser.get('/forgot-password');
    const known = await browser.post('/forgot-password', { email });
    const unknown = await browser.post('/forgot-password', { email: 'nobody-here@accounts.test' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const sentence = (html: string, address: string) => /<p role="status" id="reset-sent">([^<]*)/.exec(html.replace(address, 'ADDRESS'))?.[1];
    expect(sentence(known.html, email)).toBe(sentence(unknown.html, 'nobody-here@accounts.test'));

    const message = await waitFor(() => deps.db.message.findFirst({ where: { to: email, tags: { has: 'tidings-password-reset' } } }), 10_000, 'the reset email');
    // an organization made for testing sends through the sandbox: a test-mode message of its own
    expect(message).toMatchObject({ orgId, mode: 'test', channelType: 'email', subject: 'Reset your Tidings password' });
    expect(await deps.db.message.count({ where: { to: 'nobody-here@accounts.test' } })).toBe(0);
    // only the token's hash is stored
    const token = /reset-password\/([A-Za-z0-9_-]+)/.exec(message.text!)![1]!;
    const rows = await deps.db.passwordReset.findMany({ where: { user: { email } } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('is rate limited per email address', async () => {
    const { email } = await person();
    const browser = dashboardClient(app);
    await browser.get('/forgot-password');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await browser.post('/forgot-password', { email })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    await waitFor(async () => (await deps.db.passwordReset.count({ where: { user: { email } } })) === 5, 10_000, 'five links');
  });

  it('sets a new password once, ends every session, and refuses the link afterwards and once expired', async () => {
    const { email, user } = await person();
    const other = await signedIn(email);
    expect(other.res.status).toBe(303);
    const browser = dashboardClient(app);
    await browser.get('/forgot-password');
    await browser.post('/forgot-password', { email });
    const link = await resetLinkFor(email, 1);

    expect((await browser.get(link)).html).toContain('Choose a new password');
    expect((await browser.post(link, { password: 'short' })).status).toBe(400); // the link survives a bad password
    const done = await browser.post(link, { password: 'a brand new password' });
    expect(done).toMatchObject({ status: 303, location: '/sign-in' });
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(0);
    expect((await other.browser.get('/settings/account')).location).toMatch(/^\/sign-in/);
    await expect(deps.db.auditEvent.findMany({ where: { targetId: user.id, action: 'member.passwordReset' } })).resolves.toMatchObject([{ actorType: 'user', actorId: user.id }]);

    const used = await browser.get(link);
    expect(used.status).toBe(410);
    expect(used.html).toContain('This link no longer works');
    expect((await browser.post(link, { password: 'yet another password' })).status).toBe(410);
    expect((await signedIn(email, 'a brand new password')).res.location).toBe('/');

    // an hour later a fresh link is refused too
    await browser.post('/forgot-password', { email });
    const expiring = await resetLinkFor(email, 2);
    expect(expiring).not.toBe(link);
    expect((await browser.get(expiring)).status).toBe(200);
    clock += 60 * 60 * 1000 + 1000;
    expect((await browser.get(expiring)).status).toBe(410);
    expect((await browser.post(expiring, { password: 'too late a password' })).status).toBe(410);
    // the periodic clean-up of sessions removes links past their hour
    await deleteExpiredSessions(deps);
    expect(await deps.db.passwordReset.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe('password change', () => {
  it('needs the current password and ends the other sessions, keeping this one', async () => {
    const { email, user } = await person();
    const first = await signedIn(email);
    const second = await signedIn(email);
    await second.browser.get('/settings/account');
    expect((await second.browser.post('/settings/account/password', { currentPassword: 'wrong password!', password: 'a new long password' })).status).toBe(400);
    const changed = await second.browser.post('/settings/account/password', { currentPassword: PASSWORD, password: 'a new long password' });
    expect(changed).toMatchObject({ status: 303, location: '/settings/account' });
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(1);
    expect((await second.browser.get('/settings/account')).status).toBe(200);
    expect((await first.browser.get('/settings/account')).location).toMatch(/^\/sign-in/);
  });
});

/** Enrols `email` (signed in as `browser`) and returns the secret and the recovery codes. */
async function enrol(browser: ReturnType<typeof dashboardClient>) {
  const page = await browser.get('/settings/account/two-factor');
  expect(page.status).toBe(200);
  expect(page.html).toContain('data:image/svg+xml;base64,');
  const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page.html)![1]!;
  expect((await browser.post('/settings/account/two-factor', { code: '000000' })).status).toBe(400);
  clock += 30_000;
  const confirmed = await browser.post('/settings/account/two-factor', { code: codeAt(secret, clock) });
  expect(confirmed).toMatchObject({ status: 303, location: '/settings/account' });
  const shown = await browser.get('/settings/account');
  // one code per line of the card, not ten in one input
  const codes = /<textarea id="recovery-codes-value"[^>]*>([^<]+)<\/textarea>/.exec(shown.html)?.[1]?.split('\n') ?? [];
  expect(codes).toHaveLength(10);
  expect(codes.every((code) => /^[a-z2-9-]+$/.test(code))).toBe(true);
  expect((await browser.get('/settings/account')).html).not.toContain(codes[0]); // shown once
  return { secret, codes };
}

describe('two-factor sign-in', () => {
  it('is audited when turned on, and turned off by its person with their password (audited too)', async () => {
    const { email, user, orgId } = await person();
    const { browser } = await signedIn(email);
    await enrol(browser);
    const audited = (action: string) => deps.db.auditEvent.findMany({ where: { orgId, targetId: user.id, action }, select: { actorType: true, actorId: true } });
    await expect(audited('member.twoFactorEnabled')).resolves.toEqual([{ actorType: 'user', actorId: user.id }]);
    const wrong = await browser.post('/settings/account/two-factor/off', { disablePassword: 'not my password' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('That is not your password.');
    const off = await browser.post('/settings/account/two-factor/off', { disablePassword: PASSWORD });
    expect(off).toMatchObject({ status: 303, location: '/settings/account' });
    const page = await browser.get('/settings/account');
    expect(page.html).toContain('Two-factor sign-in is off.');
    expect(page.html).toContain('Turn on two-factor sign-in');
    await expect(audited('member.twoFactorDisabled')).resolves.toEqual([{ actorType: 'user', actorId: user.id }]);
  });

  it('stores the secret encrypted and recovery codes as hashes', async () => {
    const { email, user } = await person();
    const { browser } = await signedIn(email);
    const { secret, codes } = await enrol(browser);
    const row = await deps.db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.totpSecretCiphertext).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.recoveryCodeHashes).toHaveLength(10);
    for (const code of codes) expect(JSON.stringify(row)).not.toContain(code);
  });

  it('asks for the code after the password: a half-session until then, a wrong or replayed code refused', async () => {
    const { email, user } = await person();
    const { browser: enrolling } = await signedIn(email);
    const { secret } = await enrol(enrolling);

    const browser = dashboardClient(app);
    const step1 = await browser.signIn(email, PASSWORD);
    expect(step1).toMatchObject({ status: 303, location: '/sign-in/two-factor' });
    const sessionsBefore = await deps.db.session.count({ where: { userId: user.id } });
    // the half-session opens nothing else
    expect((await browser.get('/settings/api-keys')).location).toMatch(/^\/sign-in/);
    await browser.get('/sign-in/two-factor');
    expect((await browser.post('/sign-in/two-factor', { code: codeAt(secret, clock + 10 * 60_000) })).status).toBe(401);
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(sessionsBefore);

    clock += 30_000;
    const code = codeAt(secret, clock);
    const done = await browser.post('/sign-in/two-factor', { code });
    expect(done).toMatchObject({ status: 303, location: '/' });
    expect((await browser.get('/settings/account')).status).toBe(200);

    // the same code again, still inside its 30 seconds: refused
    const again = dashboardClient(app);
    await again.signIn(email, PASSWORD);
    await again.get('/sign-in/two-factor');
    expect((await again.post('/sign-in/two-factor', { code })).status).toBe(401);
    clock += 30_000;
    expect((await again.post('/sign-in/two-factor', { code: codeAt(secret, clock) })).status).toBe(303);
  });

  it('takes a recovery code once', async () => {
    const { email } = await person();
    const { browser: enrolling } = await signedIn(email);
    const { codes } = await enrol(enrolling);
    const first = dashboardClient(app);
    await first.signIn(email, PASSWORD);
    await first.get('/sign-in/two-factor');
    expect((await first.post('/sign-in/two-factor', { code: codes[3]!.toUpperCase() })).status).toBe(303);
    expect((await first.get('/settings/account')).html).toContain('9 recovery codes left');
    const second = dashboardClient(app);
    await second.signIn(email, PASSWORD);
    await second.get('/sign-in/two-factor');
    expect((await second.post('/sign-in/two-factor', { code: codes[3]! })).status).toBe(401);
  });

  it('ends the half-session after five wrong codes', async () => {
    const { email } = await person();
    const { browser: enrolling } = await signedIn(email);
    await enrol(enrolling);
    const browser = dashboardClient(app);
    await browser.signIn(email, PASSWORD);
    await browser.get('/sign-in/two-factor');
    const answers: number[] = [];
    for (let i = 0; i < 5; i += 1) answers.push((await browser.post('/sign-in/two-factor', { code: 'nope-nope' })).status);
    expect(answers).toEqual([401, 401, 401, 401, 303]);
    expect((await browser.get('/sign-in/two-factor')).location).toBe('/sign-in');
  });
});

describe('the organization requiring two-factor', () => {
  it('only an owner sets it; then a member without it must enrol before anything else', async () => {
    const owner = await person();
    const member = await person({ orgId: owner.orgId, role: 'operator' });
    const { browser: operator } = await signedIn(member.email);
    await operator.get('/settings/members');
    expect((await operator.post('/settings/members/two-factor-requirement', { required: 'on' })).status).toBe(403);

    const { browser: ownerBrowser } = await signedIn(owner.email);
    expect((await ownerBrowser.get('/settings/members')).html).toContain('Require two-factor sign-in of every member');
    // not before the owner has a second factor of their own
    expect((await ownerBrowser.post('/settings/members/two-factor-requirement', { required: 'on' })).status).toBe(303);
    expect((await deps.db.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).requireTwoFactor).toBe(false);
    await enrol(ownerBrowser);
    await ownerBrowser.get('/settings/members');
    expect((await ownerBrowser.post('/settings/members/two-factor-requirement', { required: 'on' })).status).toBe(303);
    expect((await deps.db.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).requireTwoFactor).toBe(true);
    // the refused and the not-yet-allowed attempts left no row; the change one, as its owner
    expect(
      await deps.db.auditEvent.findMany({ where: { orgId: owner.orgId, action: 'organization.updated' }, select: { actorType: true, actorId: true, targetId: true } }),
    ).toEqual([{ actorType: 'user', actorId: owner.user.id, targetId: owner.orgId }]);

    const { res } = await signedIn(member.email);
    expect(res.location).toBe('/');
    const next = dashboardClient(app);
    await next.signIn(member.email, PASSWORD);
    for (const path of ['/', '/messages', '/settings/api-keys']) expect((await next.get(path)).location).toBe('/settings/account/two-factor');
    expect((await next.get('/settings/account/two-factor')).html).toContain('requires a second factor of every member');
    await enrol(next);
    expect((await next.get('/messages')).status).toBe(200);
  });

  it('an owner resets a member’s second factor (ending their sessions); another organization’s member is 404', async () => {
    const owner = await person();
    const member = await person({ orgId: owner.orgId, role: 'member' });
    const stranger = await person();
    const { browser: memberBrowser } = await signedIn(member.email);
    await enrol(memberBrowser);
    const { browser } = await signedIn(owner.email);
    expect((await browser.get('/settings/members')).html).toContain(`Reset two-factor of ${member.email}`);
    expect((await browser.get(`/settings/members/${stranger.user.id}/reset-two-factor`)).status).toBe(404);
    await browser.get(`/settings/members/${member.user.id}/reset-two-factor`);
    expect((await browser.post(`/settings/members/${member.user.id}/reset-two-factor`)).status).toBe(303);
    const row = await deps.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row).toMatchObject({ totpSecretCiphertext: null, totpEnabledAt: null, recoveryCodeHashes: [] });
    expect(await deps.db.session.count({ where: { userId: member.user.id } })).toBe(0);
    expect(await deps.db.auditEvent.findMany({ where: { orgId: owner.orgId, action: 'member.twoFactorReset' }, select: { actorId: true, targetId: true } })).toEqual([
      { actorId: owner.user.id, targetId: member.user.id },
    ]);
    // their password alone signs them in again
    expect((await signedIn(member.email)).res.location).toBe('/');
  });
});
