import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queues } from '@tidings/queue';
import type { Hono, MiddlewareHandler } from 'hono';
import { canOperate, type DashEnv } from './env.ts';
import { renderError } from './views/render.tsx';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Only signed-in owners and operators reach Bull Board. A visitor opening the page is sent to sign in; its API and
 * assets answer 401/403. Bull Board's actions are JSON requests from its own page, so they carry no form token:
 * a request another site's page made (Sec-Fetch-Site other than same-origin) is refused instead.
 */
export const guardBullBoard: MiddlewareHandler<DashEnv> = async (c, next) => {
  const signedIn = c.var.signedIn;
  const isPage = c.req.method === 'GET' && !c.req.path.startsWith(`${BULL_BOARD_PATH}/api/`) && !c.req.path.startsWith(`${BULL_BOARD_PATH}/static/`);
  if (!signedIn) {
    if (isPage) return c.redirect(`/sign-in?next=${encodeURIComponent(c.req.path)}`, 303);
    return c.json({ error: 'Sign in first' }, 401);
  }
  if (!canOperate(signedIn)) {
    if (isPage) return renderError(c, 403, 'Not allowed', 'The queues are for owners and operators.');
    return c.json({ error: 'Owners and operators only' }, 403);
  }
  const site = c.req.header('sec-fetch-site');
  if (c.req.method !== 'GET' && site && site !== 'same-origin') return c.json({ error: 'Cross-site request refused' }, 403);
  return next();
};

/**
 * Bull Board for every queue (email, sms, webhooks, maintenance), to mount at `/admin/queues` behind `guardBullBoard`.
 * @example app.use(`${BULL_BOARD_PATH}/*`, guardBullBoard); app.route(BULL_BOARD_PATH, createBullBoardRoutes(deps.queues));
 */
export function createBullBoardRoutes(queues: Queues): Hono {
  const serverAdapter = new HonoAdapter(serveStatic).setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Tidings queues', miscLinks: [{ text: 'Back to the dashboard', url: '/' }] } },
  });
  return serverAdapter.registerPlugin() as unknown as Hono;
}
