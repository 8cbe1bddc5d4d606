// The Queues page in a browser: Bull Board with the provider pace beside it, each paced account's rate, use and
// deferrals readable in the window and not hiding Bull Board's queues.
import { takeProviderSlot } from '@tidings/core';
import type { Page } from 'playwright-core';
import { organizationWithOwner, startStack, type Stack } from './harness.ts';

let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  // the install's first account: its operator, who may open the Queues page
  page = (await organizationWithOwner(stack, { name: 'Paced', mode: 'test' }, { email: 'operator@paced.test', password: 'correct horse battery' })).page;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);
afterAll(() => stack?.close());

it("shows each paced account's rate, use and deferrals on the Queues page, folded away on demand", async () => {
  // a long code at 1 a second that took two sends just now: the second was deferred to the next slot
  const number = { name: 'telnyx:+16285550177', provider: 'telnyx', ratePerSecond: 1, reason: 'sender_rate_limit' } as const;
  for (let i = 0; i < 2; i++) await takeProviderSlot(stack.deps, number, 'transactional', { reserve: true });
  const panel = page.locator('.tidings-pace');
  const row = panel.locator('tr[data-account="telnyx +16285550177"]');
  // the number is noted a moment after its first slot: the page read after that shows it
  for (let tries = 0; (await row.count()) === 0 && tries < 50; tries++) await page.goto(`${stack.dashboardUrl}/admin/queues`);
  await page.getByText('email-bulk').first().waitFor(); // Bull Board drew its queues
  expect(await row.locator('td').allTextContents()).toEqual(['1/s', expect.stringMatching(/^0\.\d+\/s$/), expect.stringMatching(/^0\.\d+\/s$/), expect.any(String)]);
  // within the window, in a corner: it covers neither Bull Board's header nor its menu
  const box = (await panel.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(1280);
  expect(box.y + box.height).toBeLessThanOrEqual(800);
  expect(box.y).toBeGreaterThan(100);
  expect(box.x).toBeGreaterThan(300);
  // folded, it leaves its summary only
  await panel.locator('summary').click();
  expect(await panel.locator('table').isVisible()).toBe(false);
});
