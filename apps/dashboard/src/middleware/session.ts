import { findSession } from '@tidings/core';
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { clearDashboardCookie, PRE_SESSION_COOKIE, SESSION_COOKIE, setDashboardCookie } from '../auth/cookies.ts';
import { csrfTokenFor, newPreSessionSecret } from '../auth/csrf.ts';
import type { DashEnv } from '../env.ts';

/**
 * Loads the person behind the session cookie (one indexed lookup plus their memberships) and works out the CSRF
 * token: bound to the session when signed in, to a random pre-session cookie before.
 */
export const loadSession: MiddlewareHandler<DashEnv> = async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const signedIn = token ? await findSession(c.var.deps, token) : null;
  if (token && !signedIn) clearDashboardCookie(c, SESSION_COOKIE);
  let secret = signedIn ? token! : getCookie(c, PRE_SESSION_COOKIE);
  if (!secret) {
    secret = newPreSessionSecret();
    setDashboardCookie(c, PRE_SESSION_COOKIE, secret);
  }
  c.set('signedIn', signedIn);
  c.set('sessionToken', signedIn ? token! : null);
  c.set('csrfToken', csrfTokenFor(secret));
  await next();
};
