import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queues } from '@tidings/queue';
import type { Hono, MiddlewareHandler } from 'hono';
import { providerPaceStatus } from '@tidings/core';
import { canOperateInstall, type DashEnv } from './env.ts';
import { pacePanelHtml } from './pace-panel.ts';
import { renderError } from './views/render.tsx';

export const BULL_BOARD_PATH = '/admin/queues';

const QUEUES_REFUSED =
  'Queues (Bull Board) shows the background jobs of every organization on this install: emails, SMS, broadcasts and webhooks waiting, running or failed. ' +
  'Only the install’s operators may open it. The first account of an install is its operator; an operator grants it to you on the server with ' +
  '“npx tidings users grant-operator --email <your email>”.';

/**
 * Only install operators (the install's first account, and those granted by `tidings users grant-operator`) reach Bull Board: its queues hold every
 * organization's jobs, so an organization's owner or operator gets 403 for every page, asset and action. A visitor
 * opening the page is sent to sign in; its API and assets answer 401. Bull Board's actions are JSON requests from its own page, so they carry no form token:
 * a request another site's page made (Sec-Fetch-Site other than same-origin) is refused instead.
 */
export const guardBullBoard: MiddlewareHandler<DashEnv> = async (c, next) => {
  const signedIn = c.var.signedIn;
  const isPage = c.req.method === 'GET' && !c.req.path.startsWith(`${BULL_BOARD_PATH}/api/`) && !c.req.path.startsWith(`${BULL_BOARD_PATH}/static/`);
  if (!signedIn) {
    if (isPage) return c.redirect(`/sign-in?next=${encodeURIComponent(c.req.path)}`, 303);
    return c.json({ error: 'Sign in first' }, 401);
  }
  if (!canOperateInstall(signedIn)) {
    if (isPage) return renderError(c, 403, 'Queues: for the install’s operators', QUEUES_REFUSED);
    return c.json({ error: 'Only the install’s operators may use the queues.' }, 403);
  }
  const site = c.req.header('sec-fetch-site');
  if (c.req.method !== 'GET' && site && site !== 'same-origin') return c.json({ error: 'Cross-site request refused' }, 403);
  return next();
};

// Bull Board's own page: its scripts and styles from this server only (React sets inline styles, and the page has
// a <base>). Its Google Fonts link is removed, so the queues page asks no outside host (it falls back to the system font).
const BULL_BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'";
const OUTSIDE_STYLESHEET = /<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g;
// outside Bull Board's React root, so it stays on every screen; styled by our own stylesheet
const BACK_LINK = '<link rel="stylesheet" href="/assets/bull-board.css"><a class="tidings-back" href="/">← Dashboard</a>';

/**
 * Rewrites the HTML page of Bull Board (not its API or assets): no outside links, a link back to the dashboard, the
 * provider pace (pace-panel.ts), and a Content-Security-Policy that keeps it to this server. Mount before the Bull Board routes.
 */
export const ownBullBoardPage: MiddlewareHandler<DashEnv> = async (c, next) => {
  await next();
  if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
  const pace = await providerPaceStatus(c.var.deps).catch(() => null);
  const html = (await c.res.text()).replace(OUTSIDE_STYLESHEET, '').replace('<body class="preload">', `<body class="preload">${BACK_LINK}${pacePanelHtml(pace)}`);
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  headers.set('Content-Security-Policy', BULL_BOARD_CSP);
  headers.set('X-Frame-Options', 'DENY');
  c.res = new Response(html, { status: c.res.status, headers });
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
    options: {
      uiConfig: {
        boardTitle: 'Tidings queues',
        miscLinks: [{ text: 'Back to the dashboard', url: '/' }],
        favIcon: { default: '/assets/favicon.svg', alternative: '/favicon.ico' },
      },
    },
  });
  return serverAdapter.registerPlugin() as unknown as Hono;
}
