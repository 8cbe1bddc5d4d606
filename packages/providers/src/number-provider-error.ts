import { isRetryableStatus, ProviderError } from './provider-error.ts';

/** What a number provider's failure says of itself: its HTTP status (none: no answer) and the provider's own error code. */
export type NumberFailure = { status?: number; code?: number };

/** The provider whose numbers failed, and how its failures read. */
export type NumberProviderFailures = { provider: 'telnyx' | 'twilio'; label: string; failureOf(error: unknown): NumberFailure };

/**
 * A number provider's failure as a ProviderError: the operation, the status and the provider's error code, never
 * its text (which may echo input). No answer or a retryable status: the provider is unavailable, try again. Another
 * 4xx: refused; with `unavailableOn4xx` (an order or a purchase), the number itself is unavailable, except for
 * 401/403, which are our credentials, not the caller's request.
 * @example throw numberProviderError(twilioFailures, 'phone number release', error);
 */
export function numberProviderError(
  { provider, label, failureOf }: NumberProviderFailures,
  operation: string,
  error: unknown,
  options: { unavailableOn4xx?: boolean } = {},
): ProviderError {
  const { status, code } = failureOf(error);
  if (status === undefined || isRetryableStatus(status)) {
    return new ProviderError(provider, `${label} ${operation} failed (${status ?? 'no response'})`, { isRetryable: true, status, reason: 'provider_unavailable' });
  }
  const isUnavailable = options.unavailableOn4xx && status !== 401 && status !== 403;
  return new ProviderError(provider, `${label} ${operation} refused (${status}${code ? `, error ${code}` : ''})`, {
    isRetryable: false,
    status,
    reason: isUnavailable ? 'number_unavailable' : 'provider_rejected',
  });
}

/**
 * Runs one call to a number provider, a failure thrown as `numberProviderError`.
 * @example const found = await callNumberProvider(telnyxFailures, 'number search', () => telnyx.availablePhoneNumbers.list(query));
 */
export async function callNumberProvider<T>(failures: NumberProviderFailures, operation: string, run: () => Promise<T>, options?: { unavailableOn4xx?: boolean }): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw numberProviderError(failures, operation, error, options);
  }
}
