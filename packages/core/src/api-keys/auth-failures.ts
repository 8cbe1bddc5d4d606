import type { Deps } from '../deps.ts';
import { withinRedisDeadline } from '../redis-deadline.ts';

// One counter per address and minute: the first failure starts the minute, later ones only count.
const COUNT_FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

const WINDOW_MS = 60_000;

type RedisWithCountFailure = Deps['redis'] & { countAuthFailure(key: string, windowMs: number): Promise<[number, number]> };

/**
 * Limits failed authentications per client address to `config.authFailureLimit` a minute, counted in Redis so
 * every replica shares the count. An address over the limit is also remembered in process until its minute ends, so
 * a flood of guessed keys costs neither a database lookup nor a Redis call per request once refused.
 * @example const failures = createAuthFailureLimiter(deps); if (failures.blockedSeconds(ip)) ...; await failures.record(ip);
 */
export function createAuthFailureLimiter({ redis, config, now }: Pick<Deps, 'redis' | 'config' | 'now'>) {
  const blockedUntil = new Map<string, number>();
  const client = redis as RedisWithCountFailure;
  if (typeof client.countAuthFailure !== 'function') client.defineCommand('countAuthFailure', { numberOfKeys: 1, lua: COUNT_FAILURE_SCRIPT });

  return {
    /** Seconds until `address` may try again, or 0 when it is not blocked (here; another replica may know better). */
    blockedSeconds(address: string): number {
      const until = blockedUntil.get(address);
      if (until === undefined) return 0;
      const leftMs = until - now().getTime();
      if (leftMs > 0) return Math.ceil(leftMs / 1000);
      blockedUntil.delete(address);
      return 0;
    },
    /**
     * Counts a failure; returns the seconds to wait when this one went over the limit, else 0. Without Redis the
     * failure goes uncounted (0) rather than holding a refusal that needs no Redis until Redis is back.
     */
    async record(address: string): Promise<number> {
      const counted = await withinRedisDeadline(client, config.redisRequestTimeoutMs, () =>
        client.countAuthFailure(`${config.redisPrefix}:auth-failures:${address}`, WINDOW_MS),
      ).catch(() => null); // RedisUnavailableError, the only thing it throws
      if (!counted) return 0;
      const [count, ttlMs] = counted;
      if (count <= config.authFailureLimit) return 0;
      const leftMs = ttlMs > 0 ? ttlMs : WINDOW_MS;
      if (blockedUntil.size > 10_000) blockedUntil.clear(); // bounded, like the key cache
      blockedUntil.set(address, now().getTime() + leftMs);
      return Math.ceil(leftMs / 1000);
    },
  };
}

export type AuthFailureLimiter = ReturnType<typeof createAuthFailureLimiter>;
