// Browser tests of Webhooks, Domains and Phone numbers: a real chromium drives the real dashboard over Postgres and
// Redis, with the real webhook-worker delivering to a real HTTP receiver and verification asking a real DNS server.
import { getEmailDomain } from '@tidings/core';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { spawnService, startFakeDns, startWebhookReceiver, waitFor, type FakeDns, type WebhookReceiver } from '@tidings/testing';
import { startWebhookWorker } from '@tidings/webhook-worker';
import type { Page } from 'playwright-core';
import { organizationWithOwner, screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@northwind.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;
let dns: FakeDns;
let receiver: WebhookReceiver;
let worker: ReturnType<typeof startWebhookWorker> | undefined;
let workerProcess: ChildProcess | undefined;
let orgId: string;

beforeAll(async () => {
  dns = await startFakeDns();
  receiver = await startWebhookReceiver();
  stack = await startStack({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,200', DNS_SERVERS: dns.address });
  worker = startWebhookWorker(stack.deps);
  ({ orgId, page } = await organizationWithOwner(stack, { name: 'Northwind', mode: 'live' }, OWNER));
}, 120_000);

afterAll(async () => {
  workerProcess?.kill('SIGKILL');
  await worker?.close();
  await stack?.close();
  await receiver?.close();
  await dns?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

/** Reloads until `selector` is on the page (at most 10 s unless told): for what the worker changes after a click. */
async function reloadUntil(selector: string, timeoutMs = 10_000) {
  await waitFor(
    async () => {
      if ((await page.locator(selector).count()) > 0) return true;
      await page.reload();
      return false;
    },
    timeoutMs,
    selector,
  );
}

async function addEndpoint(path: string, description: string) {
  await page.click('.sidebar a:has-text("Webhooks")');
  await page.fill('input[name=url]', `${receiver.url}${path}`);
  await page.fill('input[name=description]', description);
  await page.check('input[name=events][value="webhook.test"]');
  await page.click('button:has-text("Add endpoint")');
  await page.waitForURL(/\/webhooks\/whk_/);
}

describe('webhooks, domains and numbers in a browser', () => {
  it('adds an endpoint (secret shown once) and sends a test event that the receiver gets', async () => {
    await addEndpoint('/tidings', 'Order system');
    const secret = await page.inputValue('#new-secret');
    expect(secret).toMatch(/^whsec_/);
    await page.click('button:has-text("Send test event")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('webhook.test event is on its way');
    const [request] = await receiver.waitForRequests(1);
    expect(request!.path).toBe('/tidings');
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'webhook.test' });

    await reloadUntil('.badge.succeeded');
    await expect(page.locator('tr[data-delivery-id] .badge').textContent()).resolves.toBe('succeeded');
    expect(await page.content()).not.toContain(secret);
    await shot('webhook-detail');
  });

  it('shows why an endpoint was disabled automatically, on the list and in a notice', async () => {
    receiver.replyNext({ kind: 'status', status: 410 });
    await addEndpoint('/legacy', 'Old CRM');
    await page.click('button:has-text("Send test event")');
    await reloadUntil('#disabled-reason');
    await expect(page.locator('#disabled-reason').textContent()).resolves.toContain('the endpoint answered 410 Gone');

    await page.click('.sidebar a:has-text("Webhooks")');
    const row = page.locator('tbody tr', { hasText: '/legacy' });
    await expect(row.locator('.badge').textContent()).resolves.toBe('Auto-disabled');
    await expect(row.locator('.reason').textContent()).resolves.toMatch(/^Disabled automatically on .+: the endpoint answered 410 Gone/);
    await expect(page.locator('.notice').textContent()).resolves.toContain(`${receiver.url}/legacy`);
    await shot('webhooks-list');

    // once the endpoint is fixed, re-enabling it ends the notice
    await page.click('.notice a');
    await page.click('button:has-text("Re-enable")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('enabled again');
    await expect(page.locator('.notice').count()).resolves.toBe(0);
  });

  it('adds a domain, shows the DNS records to copy, and verifies it', async () => {
    await page.click('.sidebar a:has-text("Domains")');
    await page.fill('input[name=name]', 'mail.northwind.example.com');
    await page.click('button:has-text("Add domain")');
    await page.waitForURL(/\/domains\/dom_/);
    const id = new URL(page.url()).pathname.split('/')[2]!;
    const { records } = await getEmailDomain(stack.deps, orgId, id);
    await expect(page.locator('table.records tbody tr').count()).resolves.toBe(records.length);
    await expect(page.inputValue('#record-0-value')).resolves.toBe(records[0]!.value);
    await page.click('button[data-copy="#record-0-value"]');
    await page.locator('button[data-copy="#record-0-value"]', { hasText: 'Copied' }).waitFor({ timeout: 5_000 }); // app.js copies, then says so

    dns.setRecords(records.map((r) => ({ name: r.name, type: r.type, value: r.value, priority: r.priority })));
    await page.click('button:has-text("Verify DNS records now")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('mail.northwind.example.com is verified: you can send from it.');
    await expect(page.locator('table.records .badge.verified').count()).resolves.toBe(records.length);

    await page.fill('input[name=fromName]', 'Northwind');
    await page.fill('input[name=fromAddress]', 'hello@mail.northwind.example.com');
    await page.click('button:has-text("Save default sender")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('hello@mail.northwind.example.com');
    await shot('domain-detail');
  });

  it('buys two numbers and makes the second the default', async () => {
    await page.click('.sidebar a:has-text("Phone numbers")');
    for (let i = 0; i < 2; i++) {
      await page.fill('input[name=areaCode]', '415');
      await page.click('button:has-text("Search numbers")');
      await page.locator('tr[data-number] button:has-text("Buy")').first().click();
      await page.waitForURL(/\/phone-numbers\/pn_/);
      await page.click('a.back');
    }
    const rows = page.locator('tr[data-number-id]');
    await expect(rows.count()).resolves.toBe(2);
    const second = rows.filter({ has: page.locator('button:has-text("Make default")') });
    const number = await second.locator('td.name').textContent();
    await second.locator('button:has-text("Make default")').click();
    await expect(page.locator('.flash').textContent()).resolves.toContain(`${number} is the default number`);
    await expect(page.locator('tr[data-number-id]', { hasText: number! }).locator('.badge').textContent()).resolves.toBe('Default');
    const defaults = await stack.deps.db.phoneNumber.findMany({ where: { orgId, isDefault: true } });
    expect(defaults.map((n) => n.number)).toEqual([number]);
    await shot('phone-numbers');
  });

  it('shows a failing endpoint in amber, a failed delivery’s payload and answers, and resends it once the receiver is back', async () => {
    // from here on a real webhook-worker process (the entry point `npm start` runs) delivers, not the one in this process
    await worker!.close();
    worker = undefined;
    const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,200' };
    workerProcess = spawnService(path.resolve(__dirname, '../../webhook-worker/src/worker.ts'), stack.deps.config, env);
    receiver.setDefault({ kind: 'status', status: 500, body: 'database is down' });
    await addEndpoint('/flaky', 'Billing sync');
    const endpoint = page.url();
    await page.click('button:has-text("Send test event")');
    await reloadUntil('tr[data-delivery-id] .badge.failed', 60_000); // the worker process starts first
    await expect(page.locator('.page-title .badge.failing').textContent()).resolves.toMatch(/^Failing since /);
    await expect(page.locator('.page-title .badge.failing').evaluate((el) => getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(254, 243, 199)');
    await page.click('.sidebar a:has-text("Webhooks")');
    await expect(page.locator('tbody tr', { hasText: '/flaky' }).locator('.badge').textContent()).resolves.toMatch(/^Failing since /);
    await shot('webhooks-failing');

    await page.goto(endpoint);
    await page.click('tr[data-delivery-id] a');
    await page.waitForURL(/\/deliveries\/dlv_/);
    await expect(page.locator('pre.payload').textContent()).resolves.toContain('"type": "webhook.test"');
    await expect(page.locator('table.attempts tbody tr').count()).resolves.toBe(3);
    await expect(page.locator('table.attempts tbody tr').first().textContent()).resolves.toContain('database is down');
    await shot('webhook-delivery');

    receiver.setDefault({ kind: 'status', status: 200, body: 'ok' });
    const before = receiver.requests.length;
    await page.click('button:has-text("Resend")');
    await expect(page.locator('.flash').textContent()).resolves.toContain('on its way again');
    await reloadUntil('.page-title .badge.succeeded');
    await expect(page.locator('table.attempts tbody tr').count()).resolves.toBe(4);
    await expect(page.locator('table.attempts tbody tr').last().textContent()).resolves.toContain('HTTP 200');
    expect(receiver.requests.length).toBe(before + 1);
    await page.goto(endpoint);
    await expect(page.locator('.page-title .badge').textContent()).resolves.toBe('Enabled');
  });
});
