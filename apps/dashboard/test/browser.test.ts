// Browser tests: a real chromium drives the real dashboard, next to the real API, over Postgres and Redis.
import { createOrganization, createUser } from '@tidings/core';
import { Worker } from 'bullmq';
import { duplicateRedis } from '@tidings/queue';
import type { Page } from 'playwright-core';
import { screenshotPath, startStack, waitFor, type Stack } from './harness.ts';

const OWNER = { email: 'owner@acme.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  page = await stack.browser.newPage();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

async function callApi(key: string): Promise<number> {
  const res = await fetch(`${stack.apiUrl}/v1/api-keys`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

async function createKeyNamed(name: string) {
  await page.fill('input[name=name]', name);
}

function keyRow(name: string) {
  return page.locator('tbody tr', { hasText: name });
}

async function signIn(email: string, password: string) {
  await page.goto(`${stack.dashboardUrl}/sign-in`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.click('button:has-text("Sign in")');
}

describe('the dashboard in a browser', () => {
  it('signs up the first person of an empty install, who owns the new organization', async () => {
    await page.goto(stack.dashboardUrl);
    expect(new URL(page.url()).pathname).toBe('/sign-up');
    await page.fill('input[name=organizationName]', 'Acme');
    await page.fill('input[name=name]', 'Olivia Owner');
    await page.fill('input[name=email]', OWNER.email);
    await page.fill('input[name=password]', 'short');
    await page.click('button:has-text("Create organization")');
    await expect(page.locator('#password-help').textContent()).resolves.toBe('Must be at least 10 characters.');
    await shot('sign-up-error');

    await page.fill('input[name=password]', OWNER.password);
    await page.click('button:has-text("Create organization")');
    await page.waitForURL((url) => url.pathname === '/settings/api-keys');
    await expect(page.locator('.flash').textContent()).resolves.toContain('Welcome to Tidings');
    await expect(page.locator('.empty-state h3').textContent()).resolves.toBe('No API keys yet');
    await expect(page.locator('.account .role').textContent()).resolves.toBe('owner');
    await shot('api-keys-empty');

    const cookies = await stack.browser.cookies(stack.dashboardUrl);
    const session = cookies.find((cookie) => cookie.name === 'tidings_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  let firstKey = '';
  let rotatedKey = '';

  it('creates a key and shows it once; the key works against the API', async () => {
    await createKeyNamed('Production server');
    await page.selectOption('select[name=permission]', 'full');
    // no live provider is configured here: Test is the default, and the form says why
    await expect(page.inputValue('select[name=mode]')).resolves.toBe('test');
    await expect(page.locator('#mode-help').textContent()).resolves.toBe(
      "No live provider is configured: a live key needs a verified domain and a provider's credentials to send.",
    );
    await page.click('button[type=submit]:has-text("Create API key")');
    firstKey = await page.inputValue('#new-key');
    expect(firstKey).toMatch(/^sk_test_[A-Za-z0-9_-]{32}$/);
    await expect(page.locator('.reveal').textContent()).resolves.toContain('will not be shown again');
    await expect(keyRow('Production server').locator('code').textContent()).resolves.toBe(`${firstKey.slice(0, 12)}…`);
    await shot('api-key-created');

    await page.reload();
    await expect(page.locator('#new-key').count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(firstKey);
    await expect(keyRow('Production server').count()).resolves.toBe(1);

    expect(await callApi(firstKey)).toBe(200);
  });

  it('rotates: the new key is shown once, and the old one keeps working for 24 h', async () => {
    await keyRow('Production server').locator('a:has-text("Rotate")').click();
    await expect(page.locator('h2').textContent()).resolves.toBe('Rotate “Production server”');
    await shot('api-key-rotate');
    await page.click('button:has-text("Rotate key")');
    rotatedKey = await page.inputValue('#new-key');
    expect(rotatedKey).toMatch(/^sk_test_/);
    expect(rotatedKey).not.toBe(firstKey);
    await expect(keyRow('Production server').textContent()).resolves.toContain('old secret valid until');
    expect(await callApi(rotatedKey)).toBe(200);
    expect(await callApi(firstKey)).toBe(200);
  });

  it('disables (the API says 401), then re-enables (200)', async () => {
    await keyRow('Production server').locator('button:has-text("Disable")').click();
    await expect(page.locator('.flash').textContent()).resolves.toContain('is disabled');
    await expect(keyRow('Production server').locator('.badge.disabled').textContent()).resolves.toBe('Disabled');
    await shot('api-keys-list');
    expect(await callApi(rotatedKey)).toBe(401);
    expect(await callApi(firstKey)).toBe(401);

    await keyRow('Production server').locator('button:has-text("Enable")').click();
    await expect(keyRow('Production server').locator('.badge.enabled').textContent()).resolves.toBe('Enabled');
    expect(await callApi(rotatedKey)).toBe(200);
  });

  it('deletes after a confirmation; the key is gone for good', async () => {
    await createKeyNamed('Staging');
    await page.click('button[type=submit]:has-text("Create API key")');
    const staging = await page.inputValue('#new-key');

    await keyRow('Production server').locator('a:has-text("Delete")').click();
    await expect(page.locator('article.confirm').textContent()).resolves.toContain('cannot be enabled again');
    await shot('api-key-delete');
    await page.click('a:has-text("Cancel")');
    await expect(keyRow('Production server').count()).resolves.toBe(1);
    expect(await callApi(rotatedKey)).toBe(200);

    await keyRow('Production server').locator('a:has-text("Delete")').click();
    await page.click('button:has-text("Delete key for good")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('is deleted');
    await expect(keyRow('Production server').count()).resolves.toBe(0);
    expect(await callApi(rotatedKey)).toBe(401);
    expect(await callApi(firstKey)).toBe(401);
    expect(await callApi(staging)).toBe(200);
  });

  it('invites a teammate with a link shown once, which lets them join', async () => {
    await page.click('.sidebar a:has-text("Members")');
    await page.fill('input[name=email]', 'teammate@acme.test');
    await page.selectOption('select[name=role]', 'operator');
    await page.click('button:has-text("Create invitation link")');
    const link = await page.inputValue('#invite-link');
    expect(link).toMatch(new RegExp(`^${stack.dashboardUrl}/invite/[A-Za-z0-9_-]{43}$`));
    await expect(page.locator('tbody tr', { hasText: 'teammate@acme.test' }).count()).resolves.toBe(1);
    await shot('members');

    // the teammate joins in this same browser, then the owner signs back in
    await page.click('button:has-text("Sign out")');
    await page.goto(link);
    await page.fill('input[name=name]', 'Tom Teammate');
    await page.fill('input[name=password]', 'teammate password');
    await page.click('button:has-text("Join Acme")');
    await page.waitForURL((url) => url.pathname === '/overview');
    await expect(page.locator('.account .email').textContent()).resolves.toBe('teammate@acme.test');
    await expect(page.locator('.account .role').textContent()).resolves.toBe('operator');
    await page.click('button:has-text("Sign out")');
    await page.goto(link);
    await expect(page.locator('h1').textContent()).resolves.toBe('Invitation not found or no longer valid');
    await signIn(OWNER.email, OWNER.password);
    await page.waitForURL((url) => url.pathname === '/overview');
  });

  it('shows every queue in Bull Board to the owner, the install’s first account and so its operator, and its retry action works', async () => {
    const { queues, redis, config } = stack.deps;
    await expect(stack.deps.db.user.findUniqueOrThrow({ where: { email: OWNER.email }, select: { isInstallOperator: true } })).resolves.toEqual({ isInstallOperator: true });
    await page.reload();
    // a failed job in the email queue, failed by hand so no processor is involved
    await queues.email.add('send', { messageId: 'msg_failing' }, { jobId: 'msg_failing' });
    const connection = duplicateRedis(redis);
    const worker = new Worker('email', null, { connection, prefix: `${config.redisPrefix}:bull` });
    const job = await worker.getNextJob('test-token');
    await job!.moveToFailed(new Error('provider said no'), 'test-token');
    await worker.close();
    await connection.quit();
    expect(await queues.email.getJobCounts('failed', 'waiting')).toEqual({ failed: 1, waiting: 0 });

    // every request of the page, to find any to another host (fonts, scripts) and any refused by its policy
    const requested: string[] = [];
    const refused: string[] = [];
    const record = (request: { url(): string }) => requested.push(request.url());
    const recordRefusal = (message: { text(): string }) => {
      if (message.text().includes('Content Security Policy')) refused.push(message.text());
    };
    page.on('request', record);
    page.on('console', recordRefusal);
    await page.click('.sidebar a:has-text("Queues")');
    await page.waitForURL((url) => url.pathname === '/admin/queues');
    for (const name of ['email', 'sms', 'webhooks', 'maintenance', 'broadcasts']) {
      await page.getByText(name, { exact: true }).first().waitFor();
    }
    await page.waitForLoadState('networkidle');
    await shot('bull-board');
    page.off('request', record);
    page.off('console', recordRefusal);
    expect(requested.filter((url) => new URL(url).origin !== stack.dashboardUrl && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${stack.dashboardUrl}/assets/bull-board.css`);
    await expect(page.locator('#fav-logo').getAttribute('href')).resolves.toBe('/assets/favicon.svg');
    expect(refused).toEqual([]);
    await page.click('a.tidings-back');
    await page.waitForURL((url) => url.pathname === '/overview');
    await page.goBack();

    await page.goto(`${stack.dashboardUrl}/admin/queues/queue/email?status=failed`);
    await page.getByText('provider said no').first().waitFor();
    await page.getByRole('button', { name: 'Retry all' }).click();
    const confirm = page.getByRole('button', { name: /^(Confirm|Retry|OK|Yes)/ });
    if (await confirm.count()) await confirm.last().click();
    expect(
      await waitFor(
        () => queues.email.getJobCounts('failed', 'waiting'),
        (counts) => counts.failed === 0,
      ),
    ).toEqual({ failed: 0, waiting: 1 });
  });

  it('refuses Bull Board to a signed-out visitor and to a member', async () => {
    await page.goto(`${stack.dashboardUrl}/settings/api-keys`);
    await page.click('button:has-text("Sign out")');
    await page.waitForURL((url) => url.pathname === '/sign-in');
    await shot('sign-in');

    await page.goto(`${stack.dashboardUrl}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    const api = await page.request.get(`${stack.dashboardUrl}/admin/queues/api/queues`);
    expect(api.status()).toBe(401);

    const orgId = (await stack.deps.db.membership.findFirstOrThrow({ where: { role: 'owner' } })).orgId;
    await createUser(stack.deps, { orgId, email: 'member@acme.test', password: 'a member password', role: 'member' });
    await signIn('member@acme.test', 'a member password');
    await page.waitForURL((url) => url.pathname === '/overview');
    await expect(page.locator('.sidebar a:has-text("Queues")').count()).resolves.toBe(0);
    const refused = await page.goto(`${stack.dashboardUrl}/admin/queues`);
    expect(refused!.status()).toBe(403);
    await expect(page.locator('.error-page').textContent()).resolves.toContain('npx tidings users grant-operator --email');
    expect((await page.request.get(`${stack.dashboardUrl}/admin/queues/api/queues`)).status()).toBe(403);
  });

  it('lets a person in several organizations switch between them, seeing only the current one', async () => {
    const { organization } = await createOrganization(stack.deps, { name: 'Globex', mode: 'test' });
    await createUser(stack.deps, { orgId: organization.id, email: OWNER.email, password: OWNER.password, role: 'owner' });
    await page.click('button:has-text("Sign out")');
    await signIn(OWNER.email, OWNER.password);
    await page.goto(`${stack.dashboardUrl}/settings/api-keys`);
    await expect(keyRow('Staging').count()).resolves.toBe(1);
    await page.selectOption('select[name=orgId]', organization.id); // app.js submits the switcher on change
    await page.waitForURL(/overview/); // the home page, as after signing in
    await expect(page.locator('.flash').textContent()).resolves.toContain('Globex');
    await page.goto(`${stack.dashboardUrl}/settings/api-keys`);
    await expect(keyRow('Staging').count()).resolves.toBe(0);
    await expect(keyRow('Default key').count()).resolves.toBe(1);
    await shot('org-switcher');
  });

  it('lets an owner change a member’s role and remove them, but not leave the organization without an owner', async () => {
    const orgId = (await stack.deps.db.organization.findFirstOrThrow({ where: { name: 'Globex' } })).id;
    await createUser(stack.deps, { orgId, email: 'grace@globex.test', password: 'a member password', role: 'member' });
    await page.click('.sidebar a:has-text("Members")');
    const grace = page.locator('tbody tr', { hasText: 'grace@globex.test' });
    await grace.locator('select[name=role]').selectOption('operator'); // app.js submits on change
    await expect(page.locator('.flash').textContent()).resolves.toBe('The role is now operator.');
    await expect(grace.locator('select[name=role]').inputValue()).resolves.toBe('operator');
    const user = await stack.deps.db.user.findUniqueOrThrow({ where: { email: 'grace@globex.test' } });
    expect((await stack.deps.db.membership.findUniqueOrThrow({ where: { orgId_userId: { orgId, userId: user.id } } })).role).toBe('operator');

    await grace.locator('a:has-text("Remove")').click();
    await page.click('button:has-text("Remove from the organization")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('They are removed from this organization.');
    await expect(grace.count()).resolves.toBe(0);
    expect(await stack.deps.db.membership.count({ where: { orgId, userId: user.id } })).toBe(0);

    const me = page.locator('tbody tr', { hasText: OWNER.email });
    await me.locator('select[name=role]').selectOption('member');
    await page.waitForURL(/\/role$/);
    await expect(page.locator('h1').textContent()).resolves.toContain('The last owner cannot be removed or demoted');
    await page.goto(`${stack.dashboardUrl}/settings/members`);
    await expect(me.locator('select[name=role]').inputValue()).resolves.toBe('owner');
  });
});
