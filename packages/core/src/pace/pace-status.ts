import type { Deps } from '../deps.ts';
import { paceAccountFor } from './pace-accounts.ts';
import { paceKey, USE_WINDOW_US } from './pace-limiter.ts';
import { seenAccounts, type SeenAccount } from './pace-limiter.ts';

/**
 * One provider account's pace as every send-worker shares it: its configured rate (requests a second: a Resend bulk
 * call carries up to 100 emails), the calls booked a second over the last USE_WINDOW (`usePerSecond`), the sends
 * of them that were deferred to a later slot (`deferralsPerSecond`), and how far ahead its slots are booked
 * (`bookedAheadMs`: what a send arriving now waits, before the lanes' tolerance).
 */
export type PaceAccountStatus = {
  provider: string;
  /** `resend`, `ses`, `smtp`, or a sending number (`+1...`) for SMS. */
  account: string;
  ratePerSecond: number;
  usePerSecond: number;
  deferralsPerSecond: number;
  bookedAheadMs: number;
};

/** Sending numbers shown at most (the most lately used): status lines and /metrics labels stay bounded. */
export const PACE_STATUS_MAX_NUMBERS = 20;

type StatusDeps = Pick<Deps, 'rateLimits' | 'config' | 'providers' | 'db'>;

/** The configured email accounts, shown even while idle (SMTP without SMTP_RATE_PER_SECOND is unpaced: left out). */
async function configuredEmailAccounts(deps: StatusDeps): Promise<SeenAccount[]> {
  const names = deps.config.providerLists.email.filter((name) => name !== 'sandbox');
  const accounts = await Promise.all(names.map((name) => paceAccountFor(deps, name, { channelType: 'email', from: '' })));
  return accounts.filter((a): a is SeenAccount => a !== null);
}

/** Calls a second in the sliding window ending now: this window's count and the part of the last one still inside it. */
function perSecond(fields: { w: number; current: number; previous: number }, nowUs: number): number {
  const win = Math.floor(nowUs / USE_WINDOW_US);
  const elapsed = (nowUs - win * USE_WINDOW_US) / USE_WINDOW_US;
  const inWindow = fields.w === win ? fields.current + fields.previous * (1 - elapsed) : fields.w === win - 1 ? fields.current * (1 - elapsed) : 0;
  return Math.round((inWindow / (USE_WINDOW_US / 1_000_000)) * 100) / 100;
}

/**
 * The pace of each email provider account configured and of each SMS number sent through lately (at most
 * PACE_STATUS_MAX_NUMBERS), read from the shared limiters in Redis: for `tidings status`, the Queues page and /metrics.
 * @example const accounts = await providerPaceStatus(deps); // [{ provider: 'resend', account: 'resend', ratePerSecond: 5, usePerSecond: 4.7, ... }]
 */
export async function providerPaceStatus(deps: StatusDeps): Promise<PaceAccountStatus[]> {
  const [configured, seen] = await Promise.all([configuredEmailAccounts(deps), seenAccounts(deps, PACE_STATUS_MAX_NUMBERS + 10)]);
  const numbers = seen.filter((a) => a.reason === 'sender_rate_limit').slice(0, PACE_STATUS_MAX_NUMBERS);
  // the configured email accounts with their current rate; a number with the rate it was last taken at
  const accounts = [...configured, ...numbers];
  const redis = deps.rateLimits.connection;
  const [time, ...hashes] = await Promise.all([redis.time(), ...accounts.map((a) => redis.hmget(paceKey(deps.config.redisPrefix, a), 'tat', 'w', 'c', 'pc', 'd', 'pd'))]);
  const nowUs = Number(time[0]) * 1_000_000 + Number(time[1]);
  return accounts.map((a, i) => {
    const [tat, w, c, pc, d, pd] = hashes[i]!.map((v) => Number(v ?? 0));
    return {
      provider: a.provider,
      account: a.reason === 'sender_rate_limit' ? a.name.slice(a.provider.length + 1) : a.name,
      ratePerSecond: a.ratePerSecond,
      usePerSecond: perSecond({ w: w!, current: c!, previous: pc! }, nowUs),
      deferralsPerSecond: perSecond({ w: w!, current: d!, previous: pd! }, nowUs),
      bookedAheadMs: Math.max(0, Math.round((tat! - nowUs) / 1000)),
    };
  });
}
