// Browser tests of Contacts, Segments and Suppressions: a real chromium drives the real dashboard over Postgres and
// Redis.
import { createOrganization, createUser } from '@tidings/core';
import type { Page } from 'playwright-core';
import { screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@northwind.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;
let orgId: string;

beforeAll(async () => {
  stack = await startStack();
  orgId = (await createOrganization(stack.deps, { name: 'Northwind', mode: 'live' })).organization.id;
  await createUser(stack.deps, { orgId, email: OWNER.email, password: OWNER.password, role: 'owner' });
  page = await stack.browser.newPage();
  await page.goto(`${stack.dashboardUrl}/sign-in`);
  await page.fill('input[name=email]', OWNER.email);
  await page.fill('input[name=password]', OWNER.password);
  await page.click('button:has-text("Sign in")');
  await page.waitForURL((url) => url.pathname === '/settings/api-keys');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

describe('contacts, segments and suppressions in a browser', () => {
  it('suppresses an address by hand, filters by reason and lifts a STOP', async () => {
    await stack.deps.db.suppression.createMany({
      data: [
        { orgId, recipient: '+14155550123', reason: 'stopped' },
        { orgId, recipient: 'bounced@northwind.example.com', reason: 'bounced' },
      ],
    });
    await page.click('.sidebar a:has-text("Suppressions")');
    await page.selectOption('select[name=channelType] >> nth=0', 'email');
    await page.fill('input[name=address][required]', 'Grace@Northwind.example.com');
    await page.click('button:has-text("Suppress")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('grace@northwind.example.com is suppressed: nothing is sent to it until it is lifted.');
    await expect(page.locator('tr[data-suppression-id]').count()).resolves.toBe(3);
    await shot('suppressions-list');

    await page.selectOption('select[name=reason]', 'stopped');
    await page.click('button:has-text("Filter")');
    await expect(page.locator('tr[data-suppression-id] td.name').allTextContents()).resolves.toEqual(['+14155550123']);
    await page.click('tr[data-suppression-id] a:has-text("Lift")');
    await expect(page.locator('article.confirm').textContent()).resolves.toContain('texted STOP');
    await page.click('button:has-text("Lift suppression")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('+14155550123 is no longer suppressed.');
    const left = await stack.deps.db.suppression.findMany({ where: { orgId }, orderBy: { recipient: 'asc' } });
    expect(left.map((s) => s.recipient)).toEqual(['bounced@northwind.example.com', 'grace@northwind.example.com']);
  });
});
