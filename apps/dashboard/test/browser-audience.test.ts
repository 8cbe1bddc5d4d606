// Browser tests of Contacts, Segments and Suppressions: a real chromium drives the real dashboard over Postgres and
// Redis.
import type { Page } from 'playwright-core';
import { organizationWithOwner, screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@northwind.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;
let orgId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ orgId, page } = await organizationWithOwner(stack, { name: 'Northwind', mode: 'live' }, OWNER));
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

describe('contacts, segments and suppressions in a browser', () => {
  it('imports a CSV of 2,000 contacts in chunks with a progress bar, and reports the two bad rows', async () => {
    const lines = ['email,firstName,lastName,plan,seats'];
    for (let row = 1; row <= 2000; row++) {
      const email = row === 700 ? 'not-an-email' : row === 1500 ? 'person1@northwind.example.com' : `person${row}@northwind.example.com`;
      lines.push(`${email},Person,"No. ${row}",${row % 3 === 0 ? 'pro' : 'free'},${row % 50}`);
    }
    await page.click('.sidebar a:has-text("Contacts")');
    await page.click('a:has-text("Import a CSV")');
    await page.setInputFiles('input[name=file]', { name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
    await page.click('button:has-text("Import")');
    const status = page.locator('#import-status', { hasText: 'contacts imported' });
    await status.waitFor({ timeout: 30_000 });
    await expect(status.textContent()).resolves.toBe('1998 of 2000 contacts imported; 2 rows were not (listed below).');
    // the script stayed on the page (no form post), and the bar reached the end
    expect(new URL(page.url()).pathname).toBe('/contacts/import');
    await expect(page.locator('#import-progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).resolves.toEqual([2000, 2000]);
    const report = await page.locator('#import-errors tbody tr').allTextContents();
    expect(report).toHaveLength(2);
    expect(report[0]).toMatch(/^700email: /);
    expect(report[1]).toBe('1500email: another contact in this organization has this email');
    await shot('contacts-import');
    expect(await stack.deps.db.contact.count({ where: { orgId } })).toBe(1998);

    await page.click('a.back');
    await page.fill('input[name=q]', 'person12');
    await page.click('button:has-text("Filter")');
    // person12 and person120..129 and person1200..1299
    await expect(page.locator('tr[data-contact-id]').count()).resolves.toBe(50);
    await expect(page.locator('a:has-text("Older contacts")').count()).resolves.toBe(1);
    await page.fill('input[name=q]', '');
    await page.click('button:has-text("Filter")');
    await shot('contacts-list');
  });

  it('imports a CSV again with "is updated from the row": existing contacts change instead of being listed', async () => {
    await page.goto(`${stack.dashboardUrl}/contacts/import`);
    const csv = 'email,lastName\nperson5@northwind.example.com,Fifth\nperson6@northwind.example.com,Sixth\n';
    await page.setInputFiles('input[name=file]', { name: 'again.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.selectOption('select[name=onConflict]', 'update');
    await page.click('button:has-text("Import")');
    const status = page.locator('#import-status', { hasText: 'contacts imported' });
    await status.waitFor({ timeout: 30_000 });
    await expect(status.textContent()).resolves.toBe('2 of 2 contacts imported (2 updated).');
    const updated = await stack.deps.db.contact.findMany({
      where: { orgId, email: { in: ['person5@northwind.example.com', 'person6@northwind.example.com'] } },
      orderBy: { email: 'asc' },
    });
    expect(updated.map((c) => [c.lastName, c.attributes])).toEqual([
      ['Fifth', { plan: 'free', seats: 5 }],
      ['Sixth', { plan: 'pro', seats: 6 }],
    ]);
    expect(await stack.deps.db.contact.count({ where: { orgId } })).toBe(1998);
    await shot('contacts-import-update');
  });

  it('edits a contact’s attributes as rows', async () => {
    await page.goto(`${stack.dashboardUrl}/contacts?q=person42%40`);
    await page.click('tr[data-contact-id] a');
    await expect(page.inputValue('input[aria-label="Attribute 1 name"]')).resolves.toBe('plan');
    await page.fill('input[aria-label="Attribute 1 value"]', '');
    await page.fill('input[aria-label="Attribute 1 name"]', '');
    await page.fill('input[aria-label="Attribute 3 name"]', 'trial');
    await page.fill('input[aria-label="Attribute 3 value"]', 'true');
    await page.click('button:has-text("Save contact")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The contact is saved.');
    const contact = await stack.deps.db.contact.findFirstOrThrow({ where: { orgId, email: 'person42@northwind.example.com' } });
    expect(contact.attributes).toEqual({ seats: 42, trial: true });
    await shot('contact-detail');
  });

  it('builds a segment with a nested group, sees the count follow each change, and lists its contacts', async () => {
    const pro = await stack.deps.db.contact.count({ where: { orgId, emailSubscribed: true, attributes: { path: ['plan'], equals: 'pro' } } });
    expect(pro).toBe(664); // rows divisible by 3, less row 1500 (refused) and person42 (plan removed)
    await page.click('.sidebar a:has-text("Segments")');
    await page.click('a:has-text("New segment")');
    await page.fill('input[name=name]', 'Pro customers');
    await page.click('button:has-text("Count matches")');
    await expect(page.locator('#segment-count').textContent()).resolves.toBe('1,998 contacts match now');
    await page.click('fieldset[data-path=r] > .actions button:has-text("+ Group")');
    await page.selectOption('select[name="field.r.1.0"]', 'attribute');
    await page.fill('input[name="attr.r.1.0"]', 'plan');
    await page.selectOption('select[name="op.r.1.0"]', 'eq');
    await page.fill('input[name="value.r.1.0"]', 'pro');
    // the script posts the form on each change: the count follows without a click
    await page.locator('#segment-count', { hasText: '664 contacts match now' }).waitFor({ timeout: 10_000 });
    await page.click('fieldset[data-path="r.1"] > .actions button:has-text("+ Condition")');
    await page.selectOption('select[name="field.r.1.1"]', 'attribute');
    await page.fill('input[name="attr.r.1.1"]', 'seats');
    await page.selectOption('select[name="op.r.1.1"]', 'gte');
    await page.fill('input[name="value.r.1.1"]', '48');
    // pro, or seats 48 or 49 (seats are row % 50): 664 + 80 rows not divisible by 3
    const expected = 664 + Array.from({ length: 2000 }, (_, i) => i + 1).filter((row) => row % 50 >= 48 && row % 3 !== 0 && row !== 700).length;
    await page.locator('#segment-count', { hasText: `${expected} contacts match now` }).waitFor({ timeout: 10_000 });
    await shot('segment-builder');
    await page.click('button:has-text("Save segment")');
    await expect(page.locator('.flash').textContent()).resolves.toBe(`The segment is saved: ${expected} contacts match now.`);
    await expect(page.locator('#contact-count').textContent()).resolves.toBe(`${expected} contacts match now`);
    await expect(page.locator('tr[data-contact-id]').count()).resolves.toBe(50);
    await expect(page.locator('a:has-text("More contacts")').count()).resolves.toBe(1);
    await shot('segment-detail');
  });

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
