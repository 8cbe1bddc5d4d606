import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { attemptErrorOf, backoffDelayMs, claimForSending, failAsRecipientStopped, listUnsubscribeHeaders, markFailed, markSent, SendAttemptFailed, sendThroughProviders, type Deps } from '@tidings/core';
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
export const sendMessageProcessor = (deps: Deps) => async (job: Job<{ messageId: string }>, token?: string) => {
  try {
    return await sendOnce(deps, job, token);
  } catch (error) {
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

async function sendOnce(deps: Deps, job: Job<{ messageId: string }>, token?: string) {
  const { messageId } = job.data;
  const claim = await claimForSending(deps, messageId);
  if (claim.kind === 'done') return { outcome: claim.reason };
  if (claim.kind === 'not-yet') {
    await job.moveToDelayed(claim.runAt.getTime(), token);
    throw new DelayedError();
  }
  const message = claim.message;
  const log = deps.logger.child({ messageId, orgId: message.orgId, attempt: message.attempts });
  const settings = deps.config.sendWorker;
  // a broadcast's List-Unsubscribe headers go to whichever provider sends it
  const headers = listUnsubscribeHeaders(deps.config.publicApiUrl, deps.config.broadcasts.unsubscribeSecret, message);
  let sent: Awaited<ReturnType<typeof sendThroughProviders>>;
  try {
    sent = await sendThroughProviders(deps, message, headers ? { headers } : {});
  } catch (error) {
    if (!(error instanceof SendAttemptFailed)) throw error; // our own failure: the outer handler retries the job
    const detail = attemptErrorOf(error.cause);
    if (error.cause instanceof ProviderError && error.cause.reason === RECIPIENT_STOPPED) {
      await failAsRecipientStopped(deps, message);
      log.warn({ provider: error.provider }, 'provider refused the message: the recipient opted out; number suppressed');
      throw new UnrecoverableError(detail.message);
    }
    if (!error.isRetryable) {
      await markFailed(deps, messageId, detail, error.provider);
      log.warn({ provider: error.provider, reason: detail.code }, 'provider refused the message for good');
      throw new UnrecoverableError(detail.message);
    }
    if (message.attempts >= settings.maxAttempts) {
      await markFailed(deps, messageId, detail, error.provider);
      log.warn({ provider: error.provider, reason: detail.code }, 'send failed after the last attempt');
      throw new UnrecoverableError(detail.message);
    }
    const delayMs = backoffDelayMs(message.attempts, { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs });
    log.info({ provider: error.provider, reason: detail.code, delayMs }, 'every provider failed; retrying later');
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
