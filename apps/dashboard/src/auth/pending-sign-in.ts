import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { DashEnv } from '../env.ts';
import { clearDashboardCookie, setDashboardCookie } from './cookies.ts';

// Between the password and the second factor the person holds a half-session: a random token in its own cookie,
// naming them in Redis for a few minutes. It is no session (findSession never sees it): it opens only the code page.
const PENDING_COOKIE = 'tidings_pending_sign_in';
const PENDING_TTL_SECONDS = 5 * 60;
/** Wrong codes one half-session may try before the password must be entered again. */
const MAX_CODE_ATTEMPTS = 5;

type Pending = { userId: string; email: string; next: string; attempts: number };

function keyOf(c: Context<DashEnv>, token: string): string {
  return `${c.var.deps.config.redisPrefix}:dashboard:pending-sign-in:${createHash('sha256').update(token).digest('hex')}`;
}

/**
 * Remembers that this browser passed the password step for `userId`; the code page finishes the sign-in.
 * @example await startPendingSignIn(c, { userId: user.id, email: user.email, next }); return c.redirect('/sign-in/two-factor', 303);
 */
export async function startPendingSignIn(c: Context<DashEnv>, pending: Omit<Pending, 'attempts'>): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await c.var.deps.redis.set(keyOf(c, token), JSON.stringify({ ...pending, attempts: 0 }), 'EX', PENDING_TTL_SECONDS);
  setDashboardCookie(c, PENDING_COOKIE, token, { maxAge: PENDING_TTL_SECONDS });
}

/** The half-session of this browser, or null when there is none (expired, finished, or too many wrong codes). */
export async function findPendingSignIn(c: Context<DashEnv>): Promise<Pending | null> {
  const token = getCookie(c, PENDING_COOKIE);
  if (!token) return null;
  const stored = await c.var.deps.redis.get(keyOf(c, token));
  return stored ? (JSON.parse(stored) as Pending) : null;
}

/** Counts a wrong code; after {@link MAX_CODE_ATTEMPTS} the half-session ends. Returns whether it is still open. */
export async function countWrongCode(c: Context<DashEnv>, pending: Pending): Promise<boolean> {
  const token = getCookie(c, PENDING_COOKIE)!;
  const attempts = pending.attempts + 1;
  if (attempts >= MAX_CODE_ATTEMPTS) {
    await endPendingSignIn(c);
    return false;
  }
  await c.var.deps.redis.set(keyOf(c, token), JSON.stringify({ ...pending, attempts }), 'KEEPTTL');
  return true;
}

/** Ends the half-session (signed in, or given up). */
export async function endPendingSignIn(c: Context<DashEnv>): Promise<void> {
  const token = getCookie(c, PENDING_COOKIE);
  if (token) await c.var.deps.redis.del(keyOf(c, token));
  clearDashboardCookie(c, PENDING_COOKIE);
}
