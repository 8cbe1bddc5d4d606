import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { backoffDelayMs, claimForSending, failAsRecipientStopped, listUnsubscribeHeaders, markFailed, markSent, recordAttemptError, type Deps } from '@tidings/core';
import { ProviderError, RECIPIENT_STOPPED } from '@tidings/providers';
import { sandboxOutcomeJobId } from './maintenance.processor.ts';
import type { Providers } from './providers.ts';

/**
 * Sends one message (the job carries only its id). Idempotent: a message past `sending` or canceled finishes
 * without a provider call; the provider call carries the message id as idempotency key (Resend). Transient
 * failures come back after exponential backoff with jitter until `SEND_MAX_ATTEMPTS`, then `failed`; permanent
 * ones fail at once (UnrecoverableError). Our own failures (Postgres) never fail the job: it runs again after backoff.
 *
 * The window between the provider's answer and our `sent` update (a crash, a lost connection): the job runs again
 * and calls the provider again with the same key. Resend answers with the first email's id, so email is
 * effectively once; the sandbox derives its id from ours, so it is once too; Telnyx takes no key, so SMS is
 * at-least-once in that window only.
 */
export const sendMessageProcessor = (deps: Deps, providers: Providers) => async (job: Job<{ messageId: string }>, token?: string) => {
  try {
    return await sendOnce(deps, providers, job, token);
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

async function sendOnce(deps: Deps, providers: Providers, job: Job<{ messageId: string }>, token?: string) {
  const { messageId } = job.data;
  const claim = await claimForSending(deps, messageId);
  if (claim.kind === 'done') return { outcome: claim.reason };
  if (claim.kind === 'not-yet') {
    await job.moveToDelayed(claim.runAt.getTime(), token);
    throw new DelayedError();
  }
  const message = claim.message;
  const log = deps.logger.child({ messageId, orgId: message.orgId, provider: message.provider, attempt: message.attempts });
  const settings = deps.config.sendWorker;
  const headers = listUnsubscribeHeaders(deps.config.publicApiUrl, deps.config.broadcasts.unsubscribeSecret, message);
  try {
    const { providerMessageId } =
      message.channelType === 'email'
        ? await providers
            .email(message.provider)
            .sendEmail({ messageId, from: message.from, to: message.to, subject: message.subject ?? '', html: message.html, text: message.text, ...(headers && { headers }) })
        : await providers.sms(message.provider).sendSms({ messageId, from: message.from, to: message.to, body: message.body ?? '' });
    const followUps =
      message.provider === 'sandbox'
        ? [{ queue: 'maintenance' as const, jobId: sandboxOutcomeJobId(messageId), runAt: new Date(deps.now().getTime() + settings.sandboxOutcomeDelayMs) }]
        : [];
    await markSent(deps, messageId, providerMessageId, followUps);
    log.info('sent');
    return { outcome: 'sent' };
  } catch (error) {
    const providerError = error instanceof ProviderError ? error : null;
    const detail = { code: (providerError?.reason ?? 'internal_error').toUpperCase(), message: providerError?.message ?? 'The send failed; it will be retried' };
    if (providerError?.reason === RECIPIENT_STOPPED) {
      await failAsRecipientStopped(deps, message);
      log.warn('provider refused the message: the recipient opted out; number suppressed');
      throw new UnrecoverableError(providerError.message);
    }
    if (providerError && !providerError.isRetryable) {
      await markFailed(deps, messageId, detail);
      log.warn({ reason: providerError.reason, status: providerError.status }, 'provider refused the message for good');
      throw new UnrecoverableError(providerError.message);
    }
    if (message.attempts >= settings.maxAttempts) {
      await markFailed(deps, messageId, detail);
      log.warn({ err: error }, 'send failed after the last attempt');
      throw new UnrecoverableError(detail.message);
    }
    // Our own failure (database, network) after the provider call is retried the same way: the repeat is safe.
    if (providerError) await recordAttemptError(deps, messageId, detail);
    const delayMs = backoffDelayMs(message.attempts, { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs });
    log.info({ err: error, delayMs }, 'send failed; retrying later');
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
}
