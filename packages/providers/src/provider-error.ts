/**
 * A provider refused or failed. `isRetryable` says whether the same call may succeed later (5xx, 429, timeouts,
 * network) or never will (a 4xx about the request itself). The message never carries credentials.
 * @example throw new ProviderError('resend', 'Resend answered 500', { isRetryable: true, status: 500 });
 */
export class ProviderError extends Error {
  readonly isRetryable: boolean;
  readonly status?: number;
  /** A short machine-readable reason, e.g. `provider_timeout`, `invalid_recipient`. */
  readonly reason: string;
  constructor(
    readonly provider: string,
    message: string,
    options: { isRetryable: boolean; status?: number; reason?: string },
  ) {
    super(message);
    this.name = 'ProviderError';
    this.isRetryable = options.isRetryable;
    this.status = options.status;
    this.reason = options.reason ?? (options.isRetryable ? 'provider_unavailable' : 'provider_rejected');
  }
}

/** Whether an HTTP status from a provider is worth retrying: 5xx, 429 and 408. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}
