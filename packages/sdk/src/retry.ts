/** How the client retries; every field has a default. */
export type RetryOptions = {
  /** Retries after the first attempt (0 turns retrying off). Default 2. */
  maxRetries: number;
  /** First backoff delay; doubled on every retry. Default 500 ms. */
  initialDelayMs: number;
  /** Longest backoff delay. Default 8 s. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned instead. Default 60 s. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

/**
 * Reads `Retry-After` (delta seconds or an HTTP date) in milliseconds; undefined when absent or unreadable.
 * @example parseRetryAfter('2') // 2000
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter for retry number `attempt` (0-based): a random delay between half and all of
 * `initialDelayMs * 2^attempt`, capped at `maxDelayMs`. The jitter keeps many clients from retrying in step.
 * @example backoffDelay(1, DEFAULT_RETRY) // between 500 and 1000
 */
export function backoffDelay(attempt: number, options: Pick<RetryOptions, 'initialDelayMs' | 'maxDelayMs'>, random = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * A status worth trying again: the request was refused for now (429) or the server failed (5xx).
 * @example isRetryableStatus(429) // true
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
