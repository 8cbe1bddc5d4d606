import {
  CallbackMalformedError,
  CallbackSignatureError,
  CallbackStaleError,
  confirmSnsSubscription,
  fetchResendReceivedEmail,
  twilioCallbackUrl,
  verifyResendCallback,
  verifySesCallback,
  verifyTelnyxCallback,
  verifyTwilioCallback,
  type CallbackReport,
  type SesCallback,
} from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEngagement } from './engagement.ts';
import { findInboundOwner, receiveInboundMessage } from './inbound.ts';
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
      // nothing is fetched for a server without SES: its route is not there
      if (!deps.providers.email('ses')) throw new AppError('NOT_FOUND', 'SES is not configured on this server, so it takes no SES callbacks.');
      return verifySesCallback(rawBody, {
        urlPattern: config.ses.snsUrlPattern,
        topicArn: config.ses.snsTopicArn,
        nowMs: deps.now().getTime(),
        certificates: deps.providers.snsCertificates,
      });
  }
}

/**
 * POST /v1/provider-events/{resend|telnyx|twilio|ses}: verifies the provider's signature (401 and nothing changes
 * when it does not check out; 400 for a genuine SNS message over an hour old), confirms an SNS subscription, then hands what it reports to the one core function of
 * its kind - `applyProviderOutcome` (status), `recordEngagement` (opened, clicked, complained, delayed) or
 * `receiveInboundMessage` (inbound) - the same ones the sandbox uses. An event about a message we do not know, or one
 * that changes nothing, is still acknowledged so the provider stops resending it.
 * @example const result = await receiveProviderCallback(deps, 'resend', rawBody, headers);
 */
export async function receiveProviderCallback(
  deps: Deps,
  provider: CallbackProvider,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ received: true; applied: boolean }> {
  let report: SesCallback;
  try {
    report = await verify(deps, provider, rawBody, headers);
  } catch (error) {
    if (error instanceof CallbackSignatureError) {
      deps.logger.warn({ provider, reason: error.message }, 'provider callback refused');
      throw new AppError('UNAUTHORIZED', `Invalid ${provider} callback signature`);
    }
    if (error instanceof CallbackStaleError) {
      deps.logger.warn({ provider, reason: error.message }, 'provider callback refused');
      throw new AppError('BAD_REQUEST', `The ${provider} callback is too old to act on`);
    }
    if (error instanceof CallbackMalformedError) {
      deps.logger.warn({ provider, reason: error.message }, 'provider callback refused');
      throw new AppError('BAD_REQUEST', error.message);
    }
    throw error;
  }
  if (!report) return { received: true, applied: false };
  if (report.kind === 'subscription') {
    try {
      await confirmSnsSubscription(report.subscribeUrl, deps.config.ses.snsUrlPattern);
    } catch (error) {
      deps.logger.warn({ provider, err: error }, 'could not confirm the SNS subscription');
      // SNS sends the confirmation again; answering 503 tells it to
      throw new AppError('INTERNAL_SERVER_ERROR', 'The SNS subscription could not be confirmed; it will be retried', 503);
    }
    deps.logger.info({ provider }, 'SNS subscription confirmed');
    return { received: true, applied: true };
  }
  const applied = await applyReport(deps, provider, report);
  if (!applied) deps.logger.info({ provider, kind: report.kind, providerMessageId: report.providerMessageId }, 'provider callback changed nothing');
  return { received: true, applied };
}

async function applyReport(deps: Deps, provider: CallbackProvider, report: CallbackReport): Promise<boolean> {
  switch (report.kind) {
    case 'inbound': {
      if (report.channelType === 'email' && provider === 'resend') {
        // the owner first: mail for a domain nobody verified is dropped before anything is fetched for it
        const orgId = await findInboundOwner(deps, 'email', report.to);
        if (!orgId) {
          deps.logger.info({ provider, channelType: 'email' }, 'inbound message for a number or domain no organization owns');
          return false;
        }
        const content = await receivedEmailContent(deps, report.providerMessageId);
        return (await receiveInboundMessage(deps, { provider, ...report, ...content, orgId })).message !== null;
      }
      return (await receiveInboundMessage(deps, { provider, ...report })).message !== null;
    }
    case 'opened':
    case 'clicked':
    case 'complained':
    case 'delayed':
      return (await recordEngagement(deps, { provider, ...report })).found;
    default:
      return (await applyProviderOutcome(deps, { provider, ...report })).changed;
  }
}

/** Resend's `email.received` carries no content: it is read from Resend (a failure fails the callback, so Resend retries). */
async function receivedEmailContent(deps: Deps, emailId: string) {
  const { apiKey, baseUrl } = deps.config.resend;
  if (!apiKey) return {};
  return fetchResendReceivedEmail({ apiKey, baseUrl, timeoutMs: deps.config.sendWorker.providerTimeoutMs }, emailId);
}
