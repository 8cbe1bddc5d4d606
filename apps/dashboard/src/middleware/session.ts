import { findSession } from '@tidings/core';
import { clientAddress } from '@tidings/runtime';
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { clearDashboardCookie, PRE_SESSION_COOKIE, SESSION_COOKIE, setDashboardCookie } from '../auth/cookies.ts';
import { csrfTokenFor, newPreSessionSecret } from '../auth/csrf.ts';
import type { DashEnv } from '../env.ts';

/**
 * Loads the person behind the session cookie (one indexed lookup plus their memberships) and works out the CSRF
 * token: bound to the session when signed in, to a random pre-session cookie before. The request's deps carry the
 * person as the audit log's actor.
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
  // what this request changes is audited as this person's doing (a visitor accepting an invitation becomes one)
  const ip = clientAddress(c, c.var.deps.config.trustProxy);
  c.set('deps', { ...c.var.deps, actor: { type: 'user', id: signedIn?.user.id ?? null, ip, mode: 'live' } });
  c.set('sessionToken', signedIn ? token! : null);
  c.set('csrfToken', csrfTokenFor(secret));
  await next();
};
