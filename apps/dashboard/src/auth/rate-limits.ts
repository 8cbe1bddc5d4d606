import { createHash } from 'node:crypto';
import { takeRateLimit } from '@tidings/core';
import { clientAddress } from '@tidings/runtime';
import type { Context } from 'hono';
import type { DashEnv } from '../env.ts';

const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
const RESET_WINDOW_MS = 60 * 60 * 1000;
/** "Forgot password" requests per hour for one email address (so nobody can flood a person's inbox)... */
const RESET_PER_EMAIL = 5;
/** ...and per client address. */
const RESET_PER_CLIENT = 20;

/** The client's address (behind a trusted proxy, the one it forwarded), or null without a socket (tests' app.request). */
export const clientAddressOf = (c: Context<DashEnv>): string | null => clientAddress(c, c.var.deps.config.trustProxy);

function emailKeyOf(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
}

/** Takes one from each sliding window; the minutes to wait when any is over its limit, else null. */
async function retryMinutes(c: Context<DashEnv>, windowMs: number, limits: { key: string; limit: number }[]): Promise<number | null> {
  const results = await Promise.all(limits.map(({ key, limit }) => takeRateLimit(c.var.deps, key, { windowMs, limit })));
  const refused = results.filter((r) => !r.isAllowed);
  if (refused.length === 0) return null;
  return Math.ceil(Math.max(...refused.map((r) => r.resetSeconds)) / 60);
}

/**
 * Counts a sign-in attempt (a password, or a second-factor code) per (email address, client address) and per client
 * address (sliding 15 minutes in Redis, shared by every replica). Returns the minutes to wait when over the limit.
 * The account's count is per address, so someone guessing from one address never locks the real person out from theirs.
 */
export function signInRetryMinutes(c: Context<DashEnv>, email: string): Promise<number | null> {
  const { config } = c.var.deps;
  const address = clientAddressOf(c);
  const base = `${config.redisPrefix}:dashboard:sign-in`;
  return retryMinutes(c, SIGN_IN_WINDOW_MS, [
    { key: `${base}:email:${emailKeyOf(email)}:${address ?? 'unknown'}`, limit: config.signInRateLimit },
    // without a socket there is no address to count against (lumping them together would lock everyone out)
    ...(address ? [{ key: `${base}:address:${address}`, limit: config.signInRateLimit * 5 }] : []),
  ]);
}

/**
 * Counts a "forgot password" request per email address (whoever asks: it bounds the emails one person can be sent)
 * and per client address, over an hour. Returns the minutes to wait when over the limit.
 */
export function passwordResetRetryMinutes(c: Context<DashEnv>, email: string): Promise<number | null> {
  const address = clientAddressOf(c);
  const base = `${c.var.deps.config.redisPrefix}:dashboard:password-reset`;
  return retryMinutes(c, RESET_WINDOW_MS, [
    { key: `${base}:email:${emailKeyOf(email)}`, limit: RESET_PER_EMAIL },
    ...(address ? [{ key: `${base}:address:${address}`, limit: RESET_PER_CLIENT }] : []),
  ]);
}

/** "Try again in 3 minutes." */
export function tryAgainIn(minutes: number): string {
  return `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}
