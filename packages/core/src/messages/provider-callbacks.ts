import { CallbackSignatureError, verifyResendCallback, verifyTelnyxCallback, type CallbackOutcome } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { applyProviderOutcome } from './provider-outcome.ts';

/**
 * POST /v1/provider-events/{resend|telnyx}: verifies the provider's signature (401 and nothing changes when it does
 * not check out), then applies what it reports through the same status path the sandbox uses. An event about a
 * message we do not know, or one that changes nothing, is still acknowledged so the provider stops resending it.
 * @example const result = await receiveProviderCallback(deps, 'resend', rawBody, headers);
 */
export async function receiveProviderCallback(
  deps: Deps,
  provider: 'resend' | 'telnyx',
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ received: true; applied: boolean }> {
  let outcome: CallbackOutcome | null;
  try {
    outcome =
      provider === 'resend'
        ? verifyResendCallback(rawBody, headers, deps.config.resend.webhookSecret)
        : verifyTelnyxCallback(rawBody, headers, deps.config.telnyx.publicKey, deps.now().getTime());
  } catch (error) {
    if (error instanceof CallbackSignatureError) {
      deps.logger.warn({ provider, reason: error.message }, 'provider callback refused');
      throw new AppError('UNAUTHORIZED', `Invalid ${provider} callback signature`);
    }
    throw error;
  }
  if (!outcome) return { received: true, applied: false };
  const result = await applyProviderOutcome(deps, { provider, ...outcome });
  if (!result.found) deps.logger.info({ provider, providerMessageId: outcome.providerMessageId }, 'provider callback for an unknown message');
  return { received: true, applied: result.changed };
}
