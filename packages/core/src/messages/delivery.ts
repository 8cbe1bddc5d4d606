import type { Message as MessageRow } from '@tidings/db';
import { messageLaneOf, type Lane } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { EARLY_TOLERANCE_MS, type OutboxItem } from '../outbox.ts';
import { unitOfWork, type UnitOfWorkDeps } from '../unit-of-work.ts';
import { changeMessageStatus, recordMessageOutcome, type ChangedMessage, type StatusChange } from './message-status.ts';
import { countSendingAttempt, fillInProvider, findClaimState, findLastStatusEvent, insertProviderClaim, recordSendingError } from './delivery.store.ts';

export type Claim =
  | { kind: 'send'; message: MessageRow }
  /** Nothing to do: the message is gone, past `sending`, canceled (its broadcast's cancel too), or just failed as suppressed. */
  | { kind: 'done'; reason: string }
  /** A scheduled message whose job ran early: run again at `runAt`. */
  | { kind: 'not-yet'; runAt: Date };

export const SUPPRESSED_MESSAGE = 'The recipient is on the suppression list (bounced, complained, unsubscribed, stopped or added by hand)';
const ORGANIZATION_SUSPENDED = { code: 'ORGANIZATION_SUSPENDED', message: 'The organization was suspended before this message was sent.' };

/**
 * The worker's first step for a job: decides whether to call the provider - for a queued message, in one statement.
 * A message past `sending` (or canceled) is done, so a repeated job never sends twice from our side; a suppressed
 * recipient (every To recipient of an email to several) ends `failed` with `SUPPRESSED` and no provider call; otherwise the message becomes `sending` (from
 * `scheduled` through `queued`) and `attempts` counts this attempt.
 * `lane`: the lane of the job's queue (the message's, see messageLaneOf).
 * @example const claim = await claimForSending(deps, job.data.messageId, 'transactional'); if (claim.kind !== 'send') return;
 */
export async function claimForSending(deps: Deps, messageId: string, lane: Lane): Promise<Claim> {
  // The common case in one statement, shared with the worker's other jobs of the lane claiming at the same time: a
  // queued message to a recipient who is not suppressed.
  const claimed = await deps.batchers.messageSteps({ kind: 'claim', messageId, lane });
  if (claimed) return { kind: 'send', message: claimed.row };
  const now = deps.now();

  const current = await findClaimState(deps.db, messageId);
  if (!current) return { kind: 'done', reason: 'missing' };
  if (!['scheduled', 'queued', 'sending'].includes(current.status)) return { kind: 'done', reason: current.status };
  if (current.isBroadcastCanceled && current.status !== 'sending') {
    await moveStatus(deps, messageId, { status: 'canceled', at: now });
    return { kind: 'done', reason: 'broadcast canceled' };
  }
  if (current.isOrgSuspended) {
    // failed rather than held: a suspension has no end date, and a message sent weeks late is worse than none
    const failed = await moveStatus(deps, messageId, { status: 'failed', at: now, error: ORGANIZATION_SUSPENDED });
    if (failed) recordMessageOutcome(deps, failed.row, 'failed');
    return { kind: 'done', reason: 'organization suspended' };
  }
  if (current.status === 'scheduled' && current.scheduledAt && current.scheduledAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'not-yet', runAt: current.scheduledAt };
  }

  if (current.isSuppressed) {
    const failed = await moveStatus(deps, messageId, { status: 'failed', at: now, error: { code: 'SUPPRESSED', message: SUPPRESSED_MESSAGE } });
    if (failed) recordMessageOutcome(deps, failed.row, 'suppressed');
    return { kind: 'done', reason: 'suppressed' };
  }
  if (current.status === 'sending') {
    // a retry: the status stays, the attempt is counted
    const row = await countSendingAttempt(deps.db, messageId);
    return row ? { kind: 'send', message: row } : { kind: 'done', reason: 'changed meanwhile' };
  }
  if (current.status === 'scheduled') {
    // its own step: a crash before `sending` leaves it queued, and the job's retry carries on from there
    const queued = await moveStatus(deps, messageId, { status: 'queued', at: now });
    if (!queued) return { kind: 'done', reason: 'changed meanwhile' };
  }
  const sending = await changeMessageStatus(deps.db, messageId, { status: 'sending', at: now, countsAttempt: true });
  return sending ? { kind: 'send', message: sending.row } : { kind: 'done', reason: 'changed meanwhile' };
}

/** One message's status change, a statement of its own, with the jobs it promises added after it. */
function moveStatus(deps: UnitOfWorkDeps, messageId: string, change: StatusChange): Promise<ChangedMessage | null> {
  return unitOfWork(
    deps,
    async (db, outbox) => {
      const moved = await changeMessageStatus(db, messageId, change);
      outbox.add(moved?.outbox);
      return moved;
    },
    { transaction: false },
  );
}

/**
 * The provider accepted the message: `sending -> sent` with the provider that took it and its id, plus any
 * follow-up jobs (the sandbox's outcome) in the same statement. When a callback got there first (the message is
 * already delivered), only the provider id is filled in.
 * @example await markSent(deps, message, { provider: 'resend', providerMessageId: 'b7d...' });
 */
export async function markSent(
  deps: Deps,
  message: Pick<MessageRow, 'id' | 'broadcastId'>,
  sent: { provider: string; providerMessageId: string },
  followUps: OutboxItem[] = [],
): Promise<void> {
  const moved = await deps.batchers.messageSteps({ kind: 'sent', change: { messageId: message.id, ...sent, followUps }, lane: messageLaneOf(message) });
  if (!moved) await fillInProvider(deps.db, message.id, sent);
}

/**
 * The send failed for good (a permanent provider error, or the last attempt): `sending -> failed` with the error,
 * naming the provider whose answer ended it when there is one.
 * @example await markFailed(deps, messageId, { code: 'provider_rejected', message: 'Resend answered 422: ...' }, 'resend');
 */
export async function markFailed(deps: Deps, messageId: string, error: { code: string; message: string }, provider?: string): Promise<void> {
  const moved = await moveStatus(deps, messageId, { status: 'failed', at: deps.now(), error, provider });
  if (moved) recordMessageOutcome(deps, moved.row, 'failed');
}

/**
 * One provider failed this attempt (the next one may take it, or the attempt is retried): the message stays
 * `sending` and shows the error, and its history gains a `sending` entry naming the provider and the error.
 * @example await recordAttemptError(deps, messageId, { code: 'PROVIDER_UNAVAILABLE', message: 'Resend answered 500' }, 'resend');
 */
export async function recordAttemptError(deps: Deps, messageId: string, error: { code: string; message: string }, provider: string | null = null): Promise<void> {
  await recordSendingError(deps.db, messageId, { error, provider, at: deps.now() });
}

/**
 * Records, before the call, that this attempt hands the message to `provider` (one without idempotency keys): a
 * `sending` entry naming it without an error. If the process dies during the call, the next attempt finds this entry
 * last and knows the provider may already have the message (see lastUnansweredProvider).
 * @example await recordProviderClaim(deps, messageId, 'smtp'); await smtp.sendEmail(email);
 */
export async function recordProviderClaim(deps: Deps, messageId: string, provider: string): Promise<void> {
  await insertProviderClaim(deps.db, messageId, provider, deps.now());
}

/**
 * The provider of an earlier attempt whose call never got an answer recorded (its claim is the message's last
 * history entry): the process died during the call, so that provider may have sent it. Null otherwise.
 * @example const unanswered = await lastUnansweredProvider(deps, messageId);
 */
export async function lastUnansweredProvider(deps: Deps, messageId: string): Promise<string | null> {
  const last = await findLastStatusEvent(deps.db, messageId);
  return last?.status === 'sending' && last.provider && !last.errorCode ? last.provider : null;
}
