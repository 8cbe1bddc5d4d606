import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { PRE_SESSION_COOKIE } from '../auth/cookies.ts';
import { isValidCsrfToken } from '../auth/csrf.ts';
import type { DashEnv } from '../env.ts';
import { renderError } from '../views/render.tsx';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (403) any state-changing request whose `_csrf` field (or `X-CSRF-Token` header) is not the token of this
 * browser's session or pre-session cookie. Runs after `loadSession`.
 */
export const verifyCsrf: MiddlewareHandler<DashEnv> = async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next();
  const secret = c.var.sessionToken ?? getCookie(c, PRE_SESSION_COOKIE);
  let token: unknown = c.req.header('x-csrf-token');
  if (!token && (c.req.header('content-type') ?? '').match(/^(application\/x-www-form-urlencoded|multipart\/form-data)/)) {
    token = (await c.req.parseBody())._csrf;
  }
  if (!isValidCsrfToken(secret, token)) {
    return renderError(c, 403, 'This form has expired', 'Go back, reload the page and try again.');
  }
  return next();
};
