// What the page-width browser tests hold every page to at 1,280 px, and the long strings they fill the pages with:
// nothing makes the page wider than the window, every checkbox is drawn as a box, and no two bordered panels touch.
import type { Page } from 'playwright-core';

export const LONG_URL = `https://links.example.com/track/${'a1b2c3d4e5f6'.repeat(20)}?utm_source=newsletter&utm_campaign=${'december'.repeat(8)}`;
export const LONG_NAME = `Quarterly${'announcement'.repeat(7)}`;
export const LONG_EMAIL = `${'very-long-local-part.'.repeat(4)}x@${'subdomain.'.repeat(5)}example.com`;
/** 191 characters, no hyphen: nowhere a browser would break it on its own. */
export const LONG_DOMAIN = `${`${'quarterlyannouncements'.repeat(2)}.`.repeat(4)}example.com`;

/** The drawn size of every visible checkbox of the page, for those smaller than a box one can see and click. */
const smallCheckboxesOf = (p: Page) =>
  p.locator('input[type=checkbox]').evaluateAll((boxes) =>
    boxes
      .map((box) => ({ name: box.getAttribute('name'), rect: box.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width + rect.height > 0 && (rect.width < 12 || rect.height < 12))
      .map(({ name, rect }) => `${name}: ${rect.width}x${rect.height}`),
  );

/** Bordered panels (cards, tables, empty states) of the page stacked one right under another with no space between. */
const flushPanelsOf = (p: Page) =>
  p.locator('main :is(.card, .table-wrap, .empty-state)').evaluateAll((panels) =>
    panels.flatMap((panel) => {
      const next = panel.nextElementSibling;
      if (!next?.matches('.card, .table-wrap, .empty-state')) return [];
      const [a, b] = [panel.getBoundingClientRect(), next.getBoundingClientRect()];
      const stacked = a.width > 0 && b.width > 0 && b.left < a.right && a.left < b.right && b.top >= a.top;
      return stacked && b.top - a.bottom <= 0 ? [`${panel.className} / ${next.className}`] : [];
    }),
  );

/** How far the page is wider than the window (0 when it fits). */
const overflowOf = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * Opens `url` in `page`, then does `act` when given (fills and sends a form, say), and expects the page then shown
 * to fit the window: no overflow, no small checkboxes, no flush panels. `label` names the page in a failure.
 * @example await expectPageFits(page, `${stack.dashboardUrl}/broadcasts`, '/broadcasts');
 */
export async function expectPageFits(page: Page, url: string, label: string, act?: () => Promise<unknown>): Promise<void> {
  await page.goto(url);
  if (act) await act();
  // after a form, the page it led to as well
  const path = act ? `${label} then ${new URL(page.url()).pathname}` : label;
  const measured = { overflow: await overflowOf(page), smallCheckboxes: await smallCheckboxesOf(page), flushPanels: await flushPanelsOf(page) };
  expect({ path, ...measured }).toEqual({ path, overflow: 0, smallCheckboxes: [], flushPanels: [] });
}
