import { within } from '@tidings/telemetry';
import { RetryLaterError } from './errors.ts';

/** How long a client refused for an unavailable Redis is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

/** ioredis states (one Redis or a cluster) in which a command would only wait in the offline queue. */
const DOWN_STATES = new Set(['reconnecting', 'close', 'end', 'disconnecting']);

/**
 * Redis did not answer a request's command in time: the request is refused (503 with `Retry-After`) before it did
 * anything, so it never acts later when Redis comes back.
 */
export class RedisUnavailableError extends RetryLaterError {
  constructor() {
    super(`Redis (rate limits and queues) is not answering; nothing was done, retry in ${RETRY_AFTER_SECONDS} s`, RETRY_AFTER_SECONDS, 'SERVICE_UNAVAILABLE');
    this.name = 'RedisUnavailableError';
  }
}

/** Whether `connection` is known to be cut off from Redis (reconnecting or closed): waiting on it would only hang. */
export function isRedisDown(connection: { status: string }): boolean {
  return DOWN_STATES.has(connection.status);
}

/**
 * Runs `work` (Redis commands on `connection`) for a request, or throws `RedisUnavailableError` at once when the
 * connection is down and after `timeoutMs` when Redis does not answer. Commands themselves never give up (BullMQ
 * needs that), so a request sets its own deadline; a command left behind runs harmlessly when Redis is back.
 * @example const result = await withinRedisDeadline(connection, 2000, () => connection.incr(key));
 */
export async function withinRedisDeadline<T>(connection: { status: string }, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  if (isRedisDown(connection)) throw new RedisUnavailableError();
  const result = await within(work, timeoutMs);
  if (!result.ok) throw new RedisUnavailableError();
  return result.value;
}
