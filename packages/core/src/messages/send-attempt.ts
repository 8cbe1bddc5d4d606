import type { Message as MessageRow } from '@tidings/db';
import { ProviderError, RECIPIENT_STOPPED } from '@tidings/providers';
import { removeFinishedMessageAttachments } from '../attachments/attachment-cleanup.ts';
import { backoffDelayMs } from '../backoff.ts';
import { listUnsubscribeHeaders } from '../broadcasts/unsubscribe-token.ts';
import type { Deps } from '../deps.ts';
import { withPasswordResetLink } from '../people/password-reset.service.ts';
import { claimForSending, failAsRecipientStopped, markFailed, markSent, recordAttemptError } from './delivery.ts';
import { attachmentFailure, outgoingEmail, outgoingSms, type AttachmentFetchOptions } from './outgoing-message.ts';
import { sandboxOutcomeJobId } from './sandbox-outcome.ts';
import { attemptErrorOf, SendAttemptFailed, sendThroughProviders } from './send-through-providers.ts';

/**
 * What one attempt to send a message came to, recorded already; the caller only schedules what comes next.
 * - `done`: nothing to send (sent or canceled before, or gone); `sent`: a provider took it.
 * - `notYet`: scheduled for later; `retry`: every provider failed for now, tried again at `at`.
 * - `failed`: refused for good, out of attempts, or its recipient opted out (`error.message` says which).
 */
export type SendAttempt =
  | { kind: 'done'; reason: string }
  | { kind: 'sent'; provider: string }
  | { kind: 'notYet'; at: Date }
  | { kind: 'retry'; at: Date }
  | { kind: 'failed'; error: { code: string; message: string } };

/**
 * Claims the message and sends it through its providers in order, failing over on retryable errors
 * (sendThroughProviders), then records the outcome and decides what comes next: after every provider failed, a retry
 * after exponential backoff with jitter until `SEND_MAX_ATTEMPTS`, then `failed`; a permanent refusal fails at once.
 * An attachment that could not be read is reported as such and retried while its failure is transient. Our own
 * failures (Postgres) are thrown: the caller runs the attempt again later, and the claim makes that safe.
 * Once the message is finished, its attachments' bytes are removed.
 * @example const attempt = await attemptToSend(deps, 'msg_01J...'); if (attempt.kind === 'retry') { delay the job until attempt.at }
 */
export async function attemptToSend(deps: Deps, messageId: string, fetchOptions: AttachmentFetchOptions = {}): Promise<SendAttempt> {
  const claim = await claimForSending(deps, messageId);
  if (claim.kind === 'not-yet') return { kind: 'notYet', at: claim.runAt };
  // a message known to have no attachments needs no clean-up statement
  const hasAttachments = claim.kind === 'done' || (Array.isArray(claim.message.attachments) && claim.message.attachments.length > 0);
  const attempt = claim.kind === 'done' ? ({ kind: 'done', reason: claim.reason } as const) : await send(deps, claim.message, fetchOptions);
  if (hasAttachments && attempt.kind !== 'retry') {
    // not worth failing the attempt over: the maintenance sweep removes what is left
    await removeFinishedMessageAttachments(deps, messageId).catch((error) => deps.logger.warn({ err: error, messageId }, 'could not remove attachment bytes'));
  }
  return attempt;
}

async function send(deps: Deps, message: MessageRow, fetchOptions: AttachmentFetchOptions): Promise<SendAttempt> {
  const log = deps.logger.child({ messageId: message.id, orgId: message.orgId, attempt: message.attempts });
  const settings = deps.config.sendWorker;
  // a broadcast's List-Unsubscribe headers go to whichever provider sends it
  const headers = listUnsubscribeHeaders(deps.config.publicApiUrl, deps.config.broadcasts.unsubscribeSecret, message);
  let sent: Awaited<ReturnType<typeof sendThroughProviders>>;
  try {
    // built again for each provider tried: attachments are streams, read once; a reset email's working link is put
    // in here only, on the way to the provider
    const email = async () => withPasswordResetLink(deps, message, await outgoingEmail(deps, message, fetchOptions, headers));
    sent = await sendThroughProviders(deps, message, { email, sms: () => outgoingSms(message) });
  } catch (error) {
    const failed = error instanceof SendAttemptFailed ? error : null;
    const cause = failed ? failed.cause : error;
    // An attachment that could not be read (a `path` that failed, when opened or half-way) is reported as such,
    // and retried like a provider's transient failure while it is a timeout, a 5xx or a dropped connection.
    const attachment = attachmentFailure(cause);
    if (!failed && !attachment) throw error; // our own failure: the caller runs the attempt again
    const detail = attachment ? { code: 'ATTACHMENT_UNAVAILABLE', message: attachment.message } : attemptErrorOf(cause);
    const provider = failed?.provider;
    if (cause instanceof ProviderError && cause.reason === RECIPIENT_STOPPED) {
      await failAsRecipientStopped(deps, message);
      log.warn({ provider }, 'provider refused the message: the recipient opted out; number suppressed');
      return { kind: 'failed', error: detail };
    }
    if (attachment ? !attachment.isRetryable : !failed!.isRetryable) {
      await markFailed(deps, message.id, detail, provider);
      log.warn({ provider, reason: detail.code }, 'the message was refused for good');
      return { kind: 'failed', error: detail };
    }
    if (message.attempts >= settings.maxAttempts) {
      await markFailed(deps, message.id, detail, provider);
      log.warn({ provider, reason: detail.code }, 'send failed after the last attempt');
      return { kind: 'failed', error: detail };
    }
    // an attachment that failed before any provider was called is not in the history yet
    if (!failed) await recordAttemptError(deps, message.id, detail);
    const delayMs = backoffDelayMs(message.attempts, { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs });
    log.info({ provider, reason: detail.code, delayMs }, 'send failed; retrying later');
    return { kind: 'retry', at: new Date(Date.now() + delayMs) };
  }
  const followUps =
    sent.provider === 'sandbox'
      ? [{ queue: 'maintenance' as const, jobId: sandboxOutcomeJobId(message.id), runAt: new Date(deps.now().getTime() + settings.sandboxOutcomeDelayMs) }]
      : [];
  // Our own failure here (the database) is thrown: the repeat is safe where the provider dedupes.
  await markSent(deps, message.id, sent, followUps);
  log.info({ provider: sent.provider }, 'sent');
  return { kind: 'sent', provider: sent.provider };
}
