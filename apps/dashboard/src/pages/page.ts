import type { OrgContext } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash, WARNING_MARK } from '../auth/cookies.ts';
import type { DashEnv, NavEntry } from '../env.ts';
import { requireManager, requireSignedIn } from '../middleware/require.ts';

/**
 * One page (or group of pages) of the dashboard: its routes, mounted at `path`, and its navigation entry. Adding a
 * page is one file exporting this and one line in `pages/index.ts`; the sidebar follows.
 */
export type DashboardPage = { path: string; nav?: NavEntry; routes: Hono<DashEnv> };

/**
 * Routes of a page behind sign-in; with `managersPost`, only owners and operators may post to them (every other
 * role reads).
 * @example const routes = pageRoutes({ managersPost: true });
 */
export function pageRoutes({ managersPost = false } = {}): Hono<DashEnv> {
  const routes = new Hono<DashEnv>();
  routes.use('*', requireSignedIn);
  if (managersPost) routes.post('*', requireManager);
  return routes;
}

/**
 * The organization the signed-in person is looking at (for routes behind sign-in).
 * @example const domain = await getEmailDomain(c.var.deps, orgOf(c), c.req.param('id'));
 */
export const orgOf = (c: Context<DashEnv>): string => c.var.signedIn!.membership.orgId;

/**
 * The request's context for core: the dependencies and the organization looked at, no mode (the dashboard sees both).
 * @example const webhook = await updateWebhook(orgContext(c), c.req.param('id'), { enabled: true });
 */
export const orgContext = (c: Context<DashEnv>): OrgContext => ({ deps: c.var.deps, orgId: orgOf(c) });

/** A notice says something is done (green) or still needs doing (amber: a domain still pending). */
export type FlashTone = 'done' | 'warning';

/**
 * Ends a form post: the notice to show once, and a redirect (303) to the page that shows it.
 * @example return flashRedirect(c, 'The name is saved.', `/phone-numbers/${id}`);
 */
export function flashRedirect(c: Context<DashEnv>, notice: string, to: string, tone: FlashTone = 'done'): Response {
  setFlash(c, tone === 'warning' ? `${WARNING_MARK}${notice}` : notice);
  return c.redirect(to, 303);
}

/** How many items a list page shows at once. */
export const PAGE_SIZE = 50;

/**
 * The list query of a keyset-paged list page: the first {@link PAGE_SIZE} items after the `cursor` of its address
 * (one that is not a cursor is a 400 from the core).
 * @example const page = await listWebhooks(c.var.deps, orgOf(c), pageQuery(c));
 */
export function pageQuery(c: Context<DashEnv>): { limit: number; offset: 0; cursor?: string } {
  return { limit: PAGE_SIZE, offset: 0, cursor: c.req.query('cursor') || undefined };
}
