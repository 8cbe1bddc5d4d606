import { ProviderError } from '../src/provider-error.ts';

/**
 * The ProviderError a send rejected with: every failure of an adapter must be one (the worker reads a refusal, an
 * outage or a throttle from it), never the SDK's own error passed through.
 * @example const error = await providerFailureOf(resend.sendEmail(email)); expect(error.isRateLimited).toBe(true);
 */
export async function providerFailureOf(send: Promise<unknown>): Promise<ProviderError> {
  const error = await send.then(
    (accepted) => new Error(`accepted: ${JSON.stringify(accepted)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** What the worker does with a failure: wait (throttled), try again or elsewhere (outage), or give up (refusal). */
export function verdictOf(error: ProviderError): 'deferred' | 'retryable' | 'refused' {
  if (error.isRateLimited) return 'deferred';
  return error.isRetryable ? 'retryable' : 'refused';
}

/** A client timeout short enough for a test, long enough for a loopback answer on a busy machine. */
export const TEST_TIMEOUT_MS = 1500;
