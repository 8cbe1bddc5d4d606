/**
 * A provider refused or failed. `isRetryable` says whether the same call may succeed later (5xx, 429, timeouts,
 * network) or never will (a 4xx about the request itself). `isRateLimited`: the provider asked us to slow down (429,
 * throttling), which is neither an outage nor a refusal: the message waits (`retryAfterMs` when the provider said).
 * The message never carries credentials.
 * @example throw new ProviderError('resend', 'Resend answered 500', { isRetryable: true, status: 500 });
 */
export class ProviderError extends Error {
  readonly isRetryable: boolean;
  readonly isRateLimited: boolean;
  readonly retryAfterMs?: number;
  readonly status?: number;
  /** A short machine-readable reason, e.g. `provider_timeout`, `invalid_recipient`, `provider_rate_limit`. */
  readonly reason: string;
  constructor(
    readonly provider: string,
    message: string,
    options: { isRetryable: boolean; status?: number; reason?: string; isRateLimited?: boolean; retryAfterMs?: number },
  ) {
    super(message);
    this.name = 'ProviderError';
    this.isRateLimited = options.isRateLimited ?? false;
    this.isRetryable = options.isRetryable || this.isRateLimited;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.reason = options.reason ?? (this.isRateLimited ? 'provider_rate_limit' : options.isRetryable ? 'provider_unavailable' : 'provider_rejected');
  }
}

/** Whether an HTTP status from a provider is worth retrying: 5xx, 429 and 408 (a 429 waits rather than fails over). */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/** Whether an HTTP status says "too many requests": the caller slows down, it is no outage. */
export function isRateLimitStatus(status: number | undefined): boolean {
  return status === 429;
}

/**
 * What a provider said about its limit, from Resend-style (IETF draft) `ratelimit-*` headers and `retry-after`:
 * requests per window, what is left of it, seconds until it resets, and seconds to wait before calling again.
 * @example paceFromHeaders({ 'ratelimit-limit': '5', 'retry-after': '1' }) // { limit: 5, retryAfterSeconds: 1 }
 */
export type ProviderPace = { limit?: number; remaining?: number; resetSeconds?: number; retryAfterSeconds?: number };

export function paceFromHeaders(headers: Record<string, string> | Headers | null | undefined): ProviderPace {
  if (!headers) return {};
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]));
  const number = (name: string) => {
    const value = Number.parseFloat(get(name) ?? '');
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const pace: ProviderPace = {};
  const entries: [keyof ProviderPace, string][] = [
    ['limit', 'ratelimit-limit'],
    ['remaining', 'ratelimit-remaining'],
    ['resetSeconds', 'ratelimit-reset'],
    ['retryAfterSeconds', 'retry-after'],
  ];
  for (const [field, header] of entries) {
    const value = number(header);
    if (value !== undefined) pace[field] = value;
  }
  return pace;
}
