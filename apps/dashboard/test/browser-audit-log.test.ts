// Settings > Audit log in a real chromium: a change made through the real API shows up, with its key, its address
// and its target, and the filters narrow the list.
import type { Page } from 'playwright-core';
import { organizationWithOwner, screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@audit.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;
let org: Omit<Awaited<ReturnType<typeof organizationWithOwner>>, 'page'>;

beforeAll(async () => {
  stack = await startStack();
  ({ page, ...org } = await organizationWithOwner(stack, { name: 'Audited', mode: 'live' }, OWNER));
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function callApi(method: string, path: string, body?: unknown): Promise<{ id: string }> {
  const res = await fetch(`${stack.apiUrl}/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${org.apiKey.key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return res.json() as Promise<{ id: string }>;
}

describe('Settings > Audit log in a browser', () => {
  it('lists a change made through the API with its key and address, and filters by action', async () => {
    const suppression = await callApi('POST', '/suppressions', { channelType: 'email', address: 'ada@example.com' });
    const key = await callApi('POST', '/api-keys', { name: 'Deploys' });

    await page.click('.sidebar a:has-text("Audit log")');
    await page.waitForURL((url) => url.pathname === '/settings/audit-log');
    const rows = page.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    // newest first
    await expect(rows.nth(0).textContent()).resolves.toContain('apiKey.created');
    const row = rows.nth(1);
    const text = await row.textContent();
    expect(text).toContain('suppression.created');
    expect(text).toContain(suppression.id);
    expect(text).toContain(org.apiKey.id);
    expect(text).toContain('127.0.0.1');
    await page.screenshot({ path: screenshotPath('audit-log'), fullPage: true });

    await page.selectOption('select[name=action]', 'apiKey.created');
    await page.click('button:has-text("Filter")');
    await page.waitForURL((url) => url.searchParams.get('action') === 'apiKey.created');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.nth(0).textContent()).resolves.toContain(key.id);
  });
});
