// The newcomer's path in a real chromium: the organization and key come from the `tidings` command (as the README's
// quick start does), and the dashboard shows that same organization, whether the person arrives through the first
// sign-up or through `tidings users create`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { screenshotPath, startStack, type Stack } from './harness.ts';

const run = promisify(execFile);
const bin = path.resolve(__dirname, '../../../packages/cli/bin/tidings.js');

let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  page = await stack.browser.newPage();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** Runs the real `tidings` command on the stack's database and returns what it printed. */
async function tidings(...args: string[]): Promise<string> {
  const { config } = stack.deps;
  const env = { ...process.env, DATABASE_URL: config.databaseUrl, REDIS_URL: config.redisUrl, REDIS_PREFIX: config.redisPrefix, LOG_LEVEL: 'silent' };
  return (await run(process.execPath, [bin, ...args], { env })).stdout;
}

/** `export $(tidings orgs create ... --env)`, read the way a shell would. */
async function createOrgFromCli(name: string): Promise<{ orgId: string; key: string }> {
  const vars = Object.fromEntries(
    (await tidings('orgs', 'create', '--name', name, '--test', '--env'))
      .trim()
      .split('\n')
      .map((line) => line.split('=')),
  );
  expect(Object.keys(vars)).toEqual(['TIDINGS_ORG_ID', 'TIDINGS_API_KEY']);
  return { orgId: vars.TIDINGS_ORG_ID, key: vars.TIDINGS_API_KEY };
}

async function sendEmail(key: string, to: string): Promise<void> {
  const res = await fetch(`${stack.apiUrl}/v1/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ channelType: 'email', to, subject: 'Hello', text: 'Hi' }),
  });
  expect(res.status).toBe(202);
  await res.arrayBuffer();
}

async function seeMessageTo(to: string) {
  await page.click('.sidebar a:has-text("Messages")');
  await page.waitForURL((url) => url.pathname === '/messages');
  await expect(page.locator('tbody tr', { hasText: to }).count()).resolves.toBe(1);
}

describe('one organization for the CLI and the dashboard', () => {
  it('the first sign-up joins the organization the CLI made, with its key and its messages', async () => {
    const acme = await createOrgFromCli('Acme');
    await sendEmail(acme.key, 'ada@example.com');

    await page.goto(stack.dashboardUrl);
    expect(new URL(page.url()).pathname).toBe('/sign-up');
    await expect(page.locator('#joins-organization').textContent()).resolves.toContain(`Acme (${acme.orgId})`);
    await expect(page.locator('input[name=organizationName]').count()).resolves.toBe(0);
    await page.screenshot({ path: screenshotPath('sign-up-joins-cli-organization'), fullPage: true });
    await page.fill('input[name=email]', 'olivia@acme.test');
    await page.fill('input[name=password]', 'correct horse battery');
    await page.click('button:has-text("Create account in Acme")');
    await page.waitForURL((url) => url.pathname === '/settings/api-keys');
    await expect(page.locator('.flash').textContent()).resolves.toContain('You own this organization');
    // the key the CLI printed is this organization's
    await expect(page.locator('tbody tr', { hasText: acme.key.slice(0, 12) }).count()).resolves.toBe(1);
    // made with --test: the form offers test keys only and says why, until an operator runs allow-live
    await expect(page.locator('select[name=mode] option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).resolves.toEqual(['test']);
    await expect(page.locator('#mode-help').textContent()).resolves.toContain('tidings orgs allow-live');
    expect(JSON.parse(await tidings('orgs', 'allow-live', acme.orgId))).toMatchObject({ id: acme.orgId, liveKeysAllowed: true });
    await page.reload();
    await expect(page.locator('select[name=mode] option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).resolves.toEqual(['live', 'test']);
    await seeMessageTo('ada@example.com');
    expect(await stack.deps.db.organization.count()).toBe(1);
    expect(await stack.deps.db.membership.findMany({ select: { orgId: true, role: true } })).toEqual([{ orgId: acme.orgId, role: 'owner' }]);
    await page.click('button:has-text("Sign out")');
  });

  it('tidings users create --org makes the first person of a CLI organization its owner, who sees its messages', async () => {
    const beta = await createOrgFromCli('Beta');
    await sendEmail(beta.key, 'grace@example.com');
    const created = JSON.parse(await tidings('users', 'create', '--org', beta.orgId, '--email', 'bob@beta.test', '--password', 'a long enough password'));
    expect(created.membership).toEqual({ orgId: beta.orgId, orgName: 'Beta', role: 'owner', requiresTwoFactor: false });

    await page.goto(`${stack.dashboardUrl}/sign-in`);
    await page.fill('input[name=email]', 'bob@beta.test');
    await page.fill('input[name=password]', 'a long enough password');
    await page.click('button:has-text("Sign in")');
    await page.waitForURL((url) => url.pathname !== '/sign-in');
    await expect(page.locator('.role').first().textContent()).resolves.toBe('owner');
    await seeMessageTo('grace@example.com');
    // and nothing of the other organization
    await expect(page.locator('tbody tr', { hasText: 'ada@example.com' }).count()).resolves.toBe(0);

    // a second person added the same way is a member, not another owner
    const second = JSON.parse(await tidings('users', 'create', '--org', beta.orgId, '--email', 'carol@beta.test', '--password', 'a long enough password'));
    expect(second.membership.role).toBe('member');
  });
});
