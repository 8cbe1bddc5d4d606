import { AppError, isSignUpOpen, switchSessionOrg, type Deps } from '@tidings/core';
import { healthRoutes, requestContext } from '@tidings/runtime';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createAssetRoutes } from './assets.routes.ts';
import { setFlash } from './auth/cookies.ts';
import { BULL_BOARD_PATH, createBullBoardRoutes, guardBullBoard, ownBullBoardPage } from './bull-board.ts';
import { CONTENT_SECURITY_POLICY } from './csp.ts';
import type { DashEnv, NavEntry } from './env.ts';
import { verifyCsrf } from './middleware/csrf.ts';
import { requireSignedIn } from './middleware/require.ts';
import { enrolWhenRequired } from './middleware/two-factor-required.ts';
import { loadSession } from './middleware/session.ts';
import { refuseUnstorableInput } from './middleware/storable-input.ts';
import { authRoutes } from './pages/auth.page.tsx';
import { pages } from './pages/index.ts';
import { passwordResetRoutes } from './pages/password-reset.routes.tsx';
import { twoFactorSignInRoutes } from './pages/two-factor-sign-in.routes.tsx';
import { renderError } from './views/render.tsx';

/** The largest request body the dashboard reads: a 10 MB CSV import and its form around it. */
const MAX_REQUEST_BYTES = 11 * 1024 * 1024;

/**
 * Builds the dashboard over the given dependencies: sign-up/in/out, the pages of `pages/index.ts`, Bull Board at
 * /admin/queues, and /healthz and /readyz (/metrics is on the process's ops port: server.ts); `server.ts` runs it, tests call `app.request()` or serve it on port 0.
 * @example const app = createDashboard(deps); serve({ fetch: app.fetch, port: deps.config.dashboardPort });
 */
export function createDashboard(deps: Deps) {
  const nav: NavEntry[] = [
    ...pages.flatMap((page) => (page.nav ? [page.nav] : [])),
    { label: 'Queues', href: BULL_BOARD_PATH, section: 'operations', isForInstallOperators: true },
  ];
  const home = pages.find((page) => page.nav)?.path ?? '/';
  const app = new Hono<DashEnv>();

  app.route('/', createAssetRoutes());
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    c.set('nav', nav);
    await next();
    c.header('Cache-Control', 'no-store'); // pages show private data and, once, new keys
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    if (!c.req.path.startsWith(BULL_BOARD_PATH)) {
      // pages that preview an email set their own (csp.ts)
      if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      c.header('X-Frame-Options', 'DENY');
    }
  });
  // the request log and metrics, and /healthz and /readyz, answered before any session work
  app.use('*', requestContext);
  app.route('/', healthRoutes(deps));
  // Before anything reads a body (the CSRF check parses every form): the largest form is a CSV import of 10 MB.
  app.use('*', bodyLimit({ maxSize: MAX_REQUEST_BYTES, onError: (c) => renderError(c, 413, 'Too large', 'A request may carry at most 11 MB: split the file.') }));
  app.use('*', refuseUnstorableInput);
  app.use('*', loadSession);
  app.use('*', enrolWhenRequired);
  app.use(BULL_BOARD_PATH, guardBullBoard);
  app.use(`${BULL_BOARD_PATH}/*`, guardBullBoard);
  app.use(`${BULL_BOARD_PATH}/*`, ownBullBoardPage); // matches the bare path too
  app.route(BULL_BOARD_PATH, createBullBoardRoutes(deps.queues));
  app.use('*', verifyCsrf);

  app.get('/', async (c) => {
    if (c.var.signedIn) return c.redirect(home, 303);
    return c.redirect((await isSignUpOpen(deps)) ? '/sign-up' : '/sign-in', 303);
  });
  app.route('/', authRoutes);
  app.route('/', twoFactorSignInRoutes);
  app.route('/', passwordResetRoutes);
  app.post('/organization', requireSignedIn, async (c) => {
    const form = await c.req.parseBody();
    await switchSessionOrg(deps, c.var.signedIn!, String(form.orgId ?? ''));
    const orgName = c.var.signedIn!.memberships.find((m) => m.orgId === form.orgId)?.orgName;
    setFlash(c, `You are now looking at ${orgName}.`);
    return c.redirect(home, 303);
  });
  for (const page of pages) app.route(page.path, page.routes);

  app.notFound((c) => renderError(c, 404, 'Page not found', 'The page you asked for does not exist, or is not in this organization.'));
  app.onError((error, c) => {
    if (error instanceof AppError && error.status < 500) {
      const status = error.status as 400 | 401 | 403 | 404 | 409 | 429;
      if (error.code === 'NOT_FOUND') return renderError(c, 404, error.message, 'It may have been deleted, or it belongs to another organization.');
      return renderError(c, status, error.message, 'Go back and try again.');
    }
    deps.logger.error({ err: error, path: c.req.path }, 'dashboard request failed');
    return renderError(c, 500, 'Something went wrong', 'The error was logged. Try again in a moment.');
  });
  return app;
}

export type Dashboard = ReturnType<typeof createDashboard>;
