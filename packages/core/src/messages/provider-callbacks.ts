import { CallbackSignatureError, fetchResendReceivedEmail, verifyResendCallback, verifyTelnyxCallback, type CallbackReport } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEngagement } from './engagement.ts';
import { receiveInboundMessage } from './inbound.ts';
import { applyProviderOutcome } from './provider-outcome.ts';

type Provider = 'resend' | 'telnyx';

/**
 * POST /v1/provider-events/{resend|telnyx}: verifies the provider's signature (401 and nothing changes when it does
 * not check out), then hands what it reports to the one core function of its kind - `applyProviderOutcome` (status),
 * `recordEngagement` (opened, clicked, complained, delayed) or `receiveInboundMessage` (inbound) - the same ones the
 * sandbox uses and any other provider's callback must call. An event about a message we do not know, or one that
 * changes nothing, is still acknowledged so the provider stops resending it.
 * @example const result = await receiveProviderCallback(deps, 'resend', rawBody, headers);
 */
export async function receiveProviderCallback(
  deps: Deps,
  provider: Provider,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ received: true; applied: boolean }> {
  let report: CallbackReport | null;
  try {
    report =
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
  if (!report) return { received: true, applied: false };
  const applied = await applyReport(deps, provider, report);
  if (!applied) deps.logger.info({ provider, kind: report.kind, providerMessageId: report.providerMessageId }, 'provider callback changed nothing');
  return { received: true, applied };
}

async function applyReport(deps: Deps, provider: Provider, report: CallbackReport): Promise<boolean> {
  switch (report.kind) {
    case 'inbound': {
      const content = report.channelType === 'email' && provider === 'resend' ? await receivedEmailContent(deps, report.providerMessageId) : {};
      const { message } = await receiveInboundMessage(deps, { provider, ...report, ...content });
      return message !== null;
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
