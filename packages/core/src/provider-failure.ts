import { ProviderError } from '@tidings/providers';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';

/**
 * Turns a provider failure into what the caller sees: an outage is a 503 INTERNAL_SERVER_ERROR saying to retry, a
 * refusal a 502 asking an operator to look; neither carries the provider's text (it can echo credentials or input).
 * The details go to the log, without secrets. Anything else is rethrown untouched.
 * @example catch (error) { throw providerFailure(deps, error, 'phone number provider'); }
 */
export function providerFailure(deps: Pick<Deps, 'logger'>, error: unknown, what: string): unknown {
  if (!(error instanceof ProviderError)) return error;
  deps.logger.warn({ provider: error.provider, status: error.status, reason: error.reason, isRetryable: error.isRetryable }, error.message);
  if (error.isRetryable) return new AppError('INTERNAL_SERVER_ERROR', `The ${what} is unavailable right now; retry in a minute`, 503);
  return new AppError('INTERNAL_SERVER_ERROR', `The ${what} refused the request; an operator should check its configuration`, 502);
}
