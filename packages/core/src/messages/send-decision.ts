import type { Config } from '@tidings/config';
import type { Message as MessageRow } from '@tidings/db';
import { ProviderError, RECIPIENT_STOPPED } from '@tidings/providers';
import { backoffDelayMs } from '../backoff.ts';
import type { OutboxItem } from '../outbox.ts';
import { SendDeferred } from '../pace/deferral.ts';
import { attachmentFailure } from './outgoing-message.ts';
import { attemptErrorOf, SendAttemptFailed } from './send-through-providers.ts';

const SANDBOX_OUTCOME_PREFIX = 'sandbox-outcome.';

/** The maintenance job that reports the sandbox's outcome for a message (its id is the job id, per house rule). */
export function sandboxOutcomeJobId(messageId: string): string {
  return `${SANDBOX_OUTCOME_PREFIX}${messageId}`;
}

/** The message a sandbox-outcome job id is for; null for any other job id. */
export function sandboxOutcomeMessageId(jobId: string | undefined): string | null {
  return jobId?.startsWith(SANDBOX_OUTCOME_PREFIX) ? jobId.slice(SANDBOX_OUTCOME_PREFIX.length) : null;
}

/** What the providers answered a claimed message: one took it, or the attempt threw (theirs, an attachment's, ours). */
export type ProviderAnswer = { kind: 'sent'; provider: string; providerMessageId: string } | { kind: 'threw'; error: unknown };

/** The settings a decision reads. */
export type SendSettings = Pick<Config['sendWorker'], 'maxAttempts' | 'backoffBaseMs' | 'backoffMaxMs' | 'sandboxOutcomeDelayMs'>;

type AttemptError = { code: string; message: string };

/**
 * What is to be recorded of an attempt:
 * - `sent`: `sending -> sent`, with the follow-up jobs (the sandbox's outcome);
 * - `deferred`: waits for its provider's pace (no attempt spent, no failover);
 * - `recipientStopped`: the provider refused because the recipient texted STOP: suppressed, and `failed`;
 * - `failed`: refused for good (`refused`) or out of attempts (`lastAttempt`);
 * - `retry`: after `delayMs`, at `at` by the clock given; `recordError` when the failure is not in the history yet (an attachment read before any
 *   provider was called);
 * - `ours`: our own failure (the database, a bug): thrown, so the attempt runs again; the claim makes that safe.
 */
export type SendDecision =
  | { kind: 'sent'; provider: string; providerMessageId: string; followUps: OutboxItem[] }
  | { kind: 'deferred'; deferral: SendDeferred }
  | { kind: 'recipientStopped'; provider?: string; error: AttemptError }
  | { kind: 'failed'; provider?: string; error: AttemptError; why: 'refused' | 'lastAttempt' }
  | { kind: 'retry'; provider?: string; error: AttemptError; recordError: boolean; delayMs: number; at: Date }
  | { kind: 'ours'; error: unknown };

/**
 * The decision about one attempt of a claimed message, from what its providers answered; no I/O. After every
 * provider failed: a retry after exponential backoff with jitter until `maxAttempts`, then `failed`; a permanent
 * refusal fails at once. An attachment that could not be read is reported as such and retried while its failure is
 * transient (a timeout, a 5xx, a dropped connection).
 * @example decideSend(claimed, { kind: 'threw', error }, config.sendWorker, { now: deps.now() }) // { kind: 'retry', delayMs: 2400, ... }
 */
export function decideSend(
  message: Pick<MessageRow, 'id' | 'attempts'>,
  answer: ProviderAnswer,
  settings: SendSettings,
  { now, random = Math.random }: { now: Date; random?: () => number },
): SendDecision {
  if (answer.kind === 'sent') {
    const followUps: OutboxItem[] =
      answer.provider === 'sandbox' ? [{ queue: 'maintenance', jobId: sandboxOutcomeJobId(message.id), runAt: new Date(now.getTime() + settings.sandboxOutcomeDelayMs) }] : [];
    return { kind: 'sent', provider: answer.provider, providerMessageId: answer.providerMessageId, followUps };
  }
  const { error } = answer;
  if (error instanceof SendDeferred) return { kind: 'deferred', deferral: error };
  const failed = error instanceof SendAttemptFailed ? error : null;
  const cause = failed ? failed.cause : error;
  const attachment = attachmentFailure(cause);
  if (!failed && !attachment) return { kind: 'ours', error };
  const detail = attachment ? { code: 'ATTACHMENT_UNAVAILABLE', message: attachment.message } : attemptErrorOf(cause);
  const provider = failed?.provider;
  if (cause instanceof ProviderError && cause.reason === RECIPIENT_STOPPED) return { kind: 'recipientStopped', provider, error: detail };
  if (attachment ? !attachment.isRetryable : !failed!.isRetryable) return { kind: 'failed', provider, error: detail, why: 'refused' };
  if (message.attempts >= settings.maxAttempts) return { kind: 'failed', provider, error: detail, why: 'lastAttempt' };
  const delayMs = backoffDelayMs(message.attempts, { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs }, random);
  return { kind: 'retry', provider, error: detail, recordError: !failed, delayMs, at: new Date(now.getTime() + delayMs) };
}
