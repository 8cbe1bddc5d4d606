import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { attemptToSend, backoffDelayMs, type AttachmentFetchOptions, type Deps, type SendAttempt } from '@tidings/core';
import { laneOfQueue, type SendQueue } from '@tidings/queue';

/**
 * Sends one message (the job carries only its id): core's `attemptToSend` claims, sends, records and decides; this
 * carries its decision out on the job. A retry or a scheduled message is delayed; a failed one ends the job for good
 * (UnrecoverableError). Our own failures (Postgres) never fail the job: it runs again after backoff.
 *
 * Idempotent: a message past `sending` or canceled finishes without a provider call; the provider call carries the
 * message id as idempotency key where the provider takes one (Resend), and as the Message-ID over SMTP. The window
 * between the provider's answer and our `sent` update (a crash, a lost connection): the job runs again and calls the
 * provider again with the same key. Resend answers with the first email's id and the sandbox derives its id from
 * ours, so those are once; SMTP, SES, Telnyx and Twilio take no key, so a repeat in that window can reach the
 * recipient twice (it is counted in tidings_provider_unconfirmed_repeats_total).
 */
export const sendMessageProcessor =
  (deps: Deps, fetchOptions: AttachmentFetchOptions = {}) =>
  async (job: Job<{ messageId: string }>, token?: string) => {
    let attempt: SendAttempt;
    try {
      attempt = await attemptToSend(deps, job.data.messageId, { ...fetchOptions, lane: laneOfQueue(job.queueName as SendQueue) });
    } catch (error) {
      // Our side failed (Postgres unreachable, a connection dropped mid-transaction) before the provider call or while
      // recording its outcome. The message is still queued or sending in the database and only this job will ever
      // move it on, so it runs again later instead of failing for good, which would strand the message.
      const delayMs = backoffDelayMs(job.attemptsStarted, { baseMs: deps.config.sendWorker.backoffBaseMs, maxMs: deps.config.sendWorker.backoffMaxMs });
      deps.logger.error({ messageId: job.data.messageId, err: error, delayMs }, 'send job crashed; running it again later');
      return delayUntil(job, new Date(Date.now() + delayMs), token);
    }
    // a deferral (the provider's pace) waits like a retry but spent no attempt
    if (attempt.kind === 'notYet' || attempt.kind === 'retry' || attempt.kind === 'deferred') return delayUntil(job, attempt.at, token);
    if (attempt.kind === 'failed') throw new UnrecoverableError(attempt.error.message);
    return { outcome: attempt.kind === 'done' ? attempt.reason : 'sent' };
  };

/** Parks this job until `at`; BullMQ runs it again then. DelayedError tells the worker the job is not finished. */
async function delayUntil(job: Job, at: Date, token: string | undefined): Promise<never> {
  await job.moveToDelayed(at.getTime(), token);
  throw new DelayedError();
}
