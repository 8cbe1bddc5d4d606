import {
  CallbackSignatureError,
  confirmSnsSubscription,
  twilioCallbackUrl,
  verifyResendCallback,
  verifySesCallback,
  verifyTelnyxCallback,
  verifyTwilioCallback,
  type CallbackNotice,
  type CallbackOutcome,
  type SesCallback,
} from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { applyProviderOutcome } from './provider-outcome.ts';

export type CallbackProvider = 'resend' | 'telnyx' | 'twilio' | 'ses';

/** Verifies one provider's callback its own way; throws CallbackSignatureError when it does not check out. */
async function verify(deps: Deps, provider: CallbackProvider, rawBody: string, headers: Record<string, string | undefined>): Promise<SesCallback> {
  const { config } = deps;
  switch (provider) {
    case 'resend':
      return verifyResendCallback(rawBody, headers, config.resend.webhookSecret);
    case 'telnyx':
      return verifyTelnyxCallback(rawBody, headers, config.telnyx.publicKey, deps.now().getTime());
    case 'twilio':
      return verifyTwilioCallback(rawBody, headers, { authToken: config.twilio.authToken, url: twilioCallbackUrl(config) });
    case 'ses':
      return verifySesCallback(rawBody, { urlPattern: config.ses.snsUrlPattern, topicArn: config.ses.snsTopicArn });
  }
}

const NOTICE_KINDS = new Set<string>(['opened', 'clicked', 'delayed', 'inbound']);
const isNotice = (result: CallbackOutcome | CallbackNotice): result is CallbackNotice => NOTICE_KINDS.has(result.kind);

/**
 * POST /v1/provider-events/{resend|telnyx|twilio|ses}: verifies the provider's signature (401 and nothing changes
 * when it does not check out), confirms an SNS subscription, then applies a status outcome through the same path the
 * sandbox uses. An event about a message we do not know, or one that changes nothing, is still acknowledged so the
 * provider stops resending it.
 * @example const result = await receiveProviderCallback(deps, 'resend', rawBody, headers);
 */
export async function receiveProviderCallback(
  deps: Deps,
  provider: CallbackProvider,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ received: true; applied: boolean }> {
  let result: SesCallback;
  try {
    result = await verify(deps, provider, rawBody, headers);
  } catch (error) {
    if (error instanceof CallbackSignatureError) {
      deps.logger.warn({ provider, reason: error.message }, 'provider callback refused');
      throw new AppError('UNAUTHORIZED', `Invalid ${provider} callback signature`);
    }
    throw error;
  }
  if (!result) return { received: true, applied: false };
  if (result.kind === 'subscription') {
    try {
      await confirmSnsSubscription(result.subscribeUrl, deps.config.ses.snsUrlPattern);
    } catch (error) {
      deps.logger.warn({ provider, err: error }, 'could not confirm the SNS subscription');
      // SNS sends the confirmation again; answering 503 tells it to
      throw new AppError('INTERNAL_SERVER_ERROR', 'The SNS subscription could not be confirmed; it will be retried', 503);
    }
    deps.logger.info({ provider }, 'SNS subscription confirmed');
    return { received: true, applied: true };
  }
  if (isNotice(result)) {
    deps.logger.info({ provider, kind: result.kind, providerMessageId: result.providerMessageId }, 'provider notice acknowledged');
    return { received: true, applied: false };
  }
  const outcome = await applyProviderOutcome(deps, { provider, ...result });
  if (!outcome.found) deps.logger.info({ provider, providerMessageId: result.providerMessageId }, 'provider callback for an unknown message');
  return { received: true, applied: outcome.changed };
}
