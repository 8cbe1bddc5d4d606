import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  attachmentFailure,
  attemptErrorOf,
  backoffDelayMs,
  claimForSending,
  failAsRecipientStopped,
  listUnsubscribeHeaders,
  markFailed,
  markSent,
  outgoingEmail,
  outgoingSms,
  recordAttemptError,
  removeFinishedMessageAttachments,
  SendAttemptFailed,
  sendThroughProviders,
  type AttachmentFetchOptions,
  type Deps,
  withPasswordResetLink,
} from '@tidings/core';
import { ProviderError, RECIPIENT_STOPPED } from '@tidings/providers';
import { sandboxOutcomeJobId } from './maintenance.processor.ts';

/**
 * Sends one message (the job carries only its id). Idempotent: a message past `sending` or canceled finishes
 * without a provider call; the provider call carries the message id as idempotency key where the provider takes one
 * (Resend), and as the Message-ID over SMTP. Each attempt goes through the providers in order, failing over on
 * retryable errors (sendThroughProviders). When every provider failed, the attempt comes back after exponential
 * backoff with jitter until `SEND_MAX_ATTEMPTS`, then `failed`; a permanent refusal fails at once (UnrecoverableError).
 * Our own failures (Postgres) never fail the job: it runs again after backoff.
 *
 * The window between the provider's answer and our `sent` update (a crash, a lost connection): the job runs again
 * and calls the provider again with the same key. Resend answers with the first email's id and the sandbox derives
 * its id from ours, so those are once; SMTP, SES, Telnyx and Twilio take no key, so a repeat in that window can
 * reach the recipient twice (it is counted in tidings_provider_unconfirmed_repeats_total).
 */
export const sendMessageProcessor =
  (deps: Deps, fetchOptions: AttachmentFetchOptions = {}) =>
  async (job: Job<{ messageId: string }>, token?: string) => {
    // what the claim showed: a message known to have no attachments needs no clean-up statement
    const claimed: { hasAttachments?: boolean } = {};
    try {
      const result = await sendOnce(deps, fetchOptions, job, token, claimed);
      if (claimed.hasAttachments !== false) await removeAttachmentBytes(deps, job.data.messageId);
      return result;
    } catch (error) {
      if (error instanceof UnrecoverableError && claimed.hasAttachments !== false) await removeAttachmentBytes(deps, job.data.messageId);
      if (error instanceof DelayedError || error instanceof UnrecoverableError) throw error;
      // Our side failed (Postgres unreachable, a connection dropped mid-transaction) before the provider call or while
      // recording its outcome. The message is still queued or sending in the database and only this job will ever
      // move it on, so it runs again later instead of failing for good, which would strand the message.
      const delayMs = backoffDelayMs(job.attemptsStarted, { baseMs: deps.config.sendWorker.backoffBaseMs, maxMs: deps.config.sendWorker.backoffMaxMs });
      deps.logger.error({ messageId: job.data.messageId, err: error, delayMs }, 'send job crashed; running it again later');
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    }
  };

/** The job ended (sent, failed, nothing to do): the bytes of its message's attachments are not needed any more. */
async function removeAttachmentBytes(deps: Deps, messageId: string) {
  // not worth failing the job over: the maintenance sweep removes what is left
  await removeFinishedMessageAttachments(deps, messageId).catch((error) => deps.logger.warn({ err: error, messageId }, 'could not remove attachment bytes'));
}

async function sendOnce(deps: Deps, fetchOptions: AttachmentFetchOptions, job: Job<{ messageId: string }>, token: string | undefined, claimed: { hasAttachments?: boolean }) {
  const { messageId } = job.data;
  const claim = await claimForSending(deps, messageId);
  if (claim.kind === 'done') return { outcome: claim.reason };
  if (claim.kind === 'not-yet') {
    await job.moveToDelayed(claim.runAt.getTime(), token);
    throw new DelayedError();
  }
  const message = claim.message;
  claimed.hasAttachments = Array.isArray(message.attachments) && message.attachments.length > 0;
  const log = deps.logger.child({ messageId, orgId: message.orgId, attempt: message.attempts });
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
    if (!failed && !attachment) throw error; // our own failure: the outer handler retries the job
    const detail = attachment ? { code: 'ATTACHMENT_UNAVAILABLE', message: attachment.message } : attemptErrorOf(cause);
    const provider = failed?.provider;
    if (cause instanceof ProviderError && cause.reason === RECIPIENT_STOPPED) {
      await failAsRecipientStopped(deps, message);
      log.warn({ provider }, 'provider refused the message: the recipient opted out; number suppressed');
      throw new UnrecoverableError(detail.message);
    }
    if (attachment ? !attachment.isRetryable : !failed!.isRetryable) {
      await markFailed(deps, messageId, detail, provider);
      log.warn({ provider, reason: detail.code }, 'the message was refused for good');
      throw new UnrecoverableError(detail.message);
    }
    if (message.attempts >= settings.maxAttempts) {
      await markFailed(deps, messageId, detail, provider);
      log.warn({ provider, reason: detail.code }, 'send failed after the last attempt');
      throw new UnrecoverableError(detail.message);
    }
    // an attachment that failed before any provider was called is not in the history yet
    if (!failed) await recordAttemptError(deps, messageId, detail);
    const delayMs = backoffDelayMs(message.attempts, { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs });
    log.info({ provider, reason: detail.code, delayMs }, 'send failed; retrying later');
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
  const followUps =
    sent.provider === 'sandbox'
      ? [{ queue: 'maintenance' as const, jobId: sandboxOutcomeJobId(messageId), runAt: new Date(deps.now().getTime() + settings.sandboxOutcomeDelayMs) }]
      : [];
  // Our own failure here (the database) is retried by the outer handler: the repeat is safe where the provider dedupes.
  await markSent(deps, messageId, sent, followUps);
  log.info({ provider: sent.provider }, 'sent');
  return { outcome: 'sent' };
}
