import { randomUUID } from 'node:crypto';
import type { Redis } from '@tidings/queue';
import type { Cluster, Redis as IORedis } from 'ioredis';
import { untraced } from '@tidings/telemetry';
import { definePaceCommands } from './pace/pace-limiter.ts';
import { withinRedisDeadline } from './redis-deadline.ts';

// A sliding log per key: one sorted set of request times (Redis server time, so every replica shares one clock).
// Old entries are dropped, the rest counted and, when under the limit, this request added: all in one atomic call.
const SLIDING_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local resetMs = window
if oldest[2] then resetMs = tonumber(oldest[2]) + window - now end
return {allowed, limit - count, resetMs}
`;

/**
 * A connection like `redis` that sends the commands of one event-loop turn in one write (ioredis's auto-pipelining):
 * every request takes a rate limit, and on loopback a socket write costs tens of microseconds of kernel time. Its own
 * connection, since BullMQ's commands are not to be pipelined that way; it connects at its first command (a process
 * that takes no rate limit opens none) and closes with the dependencies. It carries the sliding-window script.
 */
export type RateLimits = { connection: RedisWithSlidingWindow; timeoutMs: number; close(): Promise<void> };

/**
 * One process's rate-limit connection, made with its dependencies. `timeoutMs`: how long a take waits for Redis
 * before it throws `RedisUnavailableError` (REDIS_REQUEST_TIMEOUT_MS).
 * @example const rateLimits = createRateLimits(redis, config.redisRequestTimeoutMs); ...; await rateLimits.close();
 */
export function createRateLimits(redis: Redis, timeoutMs = 2000): RateLimits {
  const options = { enableAutoPipelining: true, lazyConnect: true };
  const connection = (redis.isCluster ? (redis as Cluster).duplicate(undefined, options) : (redis as IORedis).duplicate(options)) as RedisWithSlidingWindow;
  connection.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
  // the providers' pace is taken on the same connection (a send-worker's every provider call)
  definePaceCommands(connection);
  return {
    connection,
    timeoutMs,
    async close() {
      // never connected: nothing to say goodbye to
      if (connection.status === 'wait') connection.disconnect();
      else await connection.quit().catch(() => {}); // closing is best effort
    },
  };
}

export type RateLimitResult = { isAllowed: boolean; limit: number; remaining: number; resetSeconds: number };

type RedisWithSlidingWindow = Redis & {
  slidingWindow(key: string, windowMs: number, limit: number, member: string): Promise<[number, number, number]>;
};

/**
 * Counts a request against `limit` per rolling `windowMs` for `key`; a refused request is not counted. Throws
 * `RedisUnavailableError` when Redis is down or slower than the connection's deadline: no request waits out an outage.
 * @example const result = await takeRateLimit(deps, `tidings:rl:${keyId}`, { limit: 100, windowMs: 60_000 });
 */
export async function takeRateLimit({ rateLimits }: { rateLimits: RateLimits }, key: string, options: { limit: number; windowMs: number }): Promise<RateLimitResult> {
  const client = rateLimits.connection;
  // every request takes one: a span of it would cost the SDK's work per request and show on-call nothing
  const [allowed, remaining, resetMs] = await withinRedisDeadline(client, rateLimits.timeoutMs, () =>
    untraced(() => client.slidingWindow(key, options.windowMs, options.limit, randomUUID())),
  );
  return { isAllowed: allowed === 1, limit: options.limit, remaining: Math.max(0, remaining), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}

type RateLimitConfig = { redisPrefix: string; rateLimitPerMinute: number; orgRateLimitPerMinute: number; rateLimitWindowMs: number };

/** The verdict of the key rate limit: the key's own count (for RateLimit-* headers), and why it is refused, if it is. */
export type KeyRateLimitVerdict = { key: RateLimitResult; refusal: { message: string; retryAfterSeconds: number } | null };

/**
 * The one rate-limit policy of a request made with an API key, over HTTP or SMTP alike: the key's own limit
 * (`RATE_LIMIT_PER_MINUTE`), then the ceiling of all of the organization's keys together (`ORG_RATE_LIMIT_PER_MINUTE`,
 * so a hundred keys are not a hundred times the limit). Counted in Redis, so every replica and both doors share them;
 * the ceiling is not taken when the key's own limit refuses.
 * @example const { refusal } = await takeKeyRateLimit(deps, principal); if (refusal) throw new AppError('TOO_MANY_REQUESTS', refusal.message);
 */
export async function takeKeyRateLimit(
  deps: { rateLimits: RateLimits; config: RateLimitConfig },
  { keyId, orgId }: { keyId: string; orgId: string },
): Promise<KeyRateLimitVerdict> {
  const { config } = deps;
  const windowMs = config.rateLimitWindowMs;
  const key = await takeRateLimit(deps, `${config.redisPrefix}:rate:${keyId}`, { limit: config.rateLimitPerMinute, windowMs });
  if (!key.isAllowed) {
    return { key, refusal: { message: `Rate limit of ${key.limit} requests per minute exceeded; retry in ${key.resetSeconds} s`, retryAfterSeconds: key.resetSeconds } };
  }
  const organization = await takeRateLimit(deps, `${config.redisPrefix}:rate:org:${orgId}`, { limit: config.orgRateLimitPerMinute, windowMs });
  if (organization.isAllowed) return { key, refusal: null };
  const message = `The organization's rate limit of ${organization.limit} requests per minute, all its keys together, is exceeded; retry in ${organization.resetSeconds} s`;
  return { key, refusal: { message, retryAfterSeconds: organization.resetSeconds } };
}
