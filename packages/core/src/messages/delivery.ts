import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { recordSmsOptOut } from '../suppressions/sms-opt-out.ts';
import { dispatchOutbox, type DispatchDeps, type OutboxItem } from '../outbox.ts';
import { recordMessageOutcome } from './message-outcome.ts';
import { changeMessageStatus, changeMessagesStatuses, type ChangedMessage, type ChangeOf, type StatusChangeOfMany } from './message-status.ts';
import { groupCommit } from '../group-commit.ts';
import { claimableSql, countSendingAttempt, fillInProvider, findClaimState, findLastStatusEvent, insertProviderClaim, recordSendingError } from './delivery.store.ts';

export type Claim =
  | { kind: 'send'; message: MessageRow }
  /** Nothing to do: the message is gone, past `sending`, canceled (its broadcast's cancel too), or just failed as suppressed. */
  | { kind: 'done'; reason: string }
  /** A scheduled message whose job ran early: run again at `runAt`. */
  | { kind: 'not-yet'; runAt: Date };

const SUPPRESSED_MESSAGE = 'The recipient is on the suppression list (bounced, complained, unsubscribed, stopped or added by hand)';
const ORGANIZATION_SUSPENDED = { code: 'ORGANIZATION_SUSPENDED', message: 'The organization was suspended before this message was sent.' };

/** A job that runs this much before `scheduledAt` sends anyway (clock skew between Redis and the worker). */
const EARLY_TOLERANCE_MS = 1000;

/**
 * The worker's first step for a job: decides whether to call the provider - for a queued message, in one statement.
 * A message past `sending` (or canceled) is done, so a repeated job never sends twice from our side; a suppressed
 * recipient (every To recipient of an email to several) ends `failed` with `SUPPRESSED` and no provider call; otherwise the message becomes `sending` (from
 * `scheduled` through `queued`) and `attempts` counts this attempt.
 * @example const claim = await claimForSending(deps, job.data.messageId); if (claim.kind !== 'send') return;
 */
export async function claimForSending(deps: Deps, messageId: string): Promise<Claim> {
  // The common case in one statement, shared with the worker's other jobs claiming at the same time: a queued
  // message to a recipient who is not suppressed.
  const claimed = await deps.batchers.messageSteps({ kind: 'claim', messageId });
  if (claimed) return { kind: 'send', message: claimed.row };
  const now = deps.now();

  const current = await findClaimState(deps.db, messageId);
  if (!current) return { kind: 'done', reason: 'missing' };
  if (!['scheduled', 'queued', 'sending'].includes(current.status)) return { kind: 'done', reason: current.status };
  if (current.isBroadcastCanceled && current.status !== 'sending') {
    const canceled = await changeMessageStatus(deps.db, messageId, { status: 'canceled', at: now });
    if (canceled) await dispatchOutbox(deps, canceled.outbox);
    return { kind: 'done', reason: 'broadcast canceled' };
  }
  if (current.isOrgSuspended) {
    // failed rather than held: a suspension has no end date, and a message sent weeks late is worse than none
    const failed = await changeMessageStatus(deps.db, messageId, { status: 'failed', at: now, error: ORGANIZATION_SUSPENDED });
    if (failed) {
      recordMessageOutcome(deps, failed.row, 'failed');
      await dispatchOutbox(deps, failed.outbox);
    }
    return { kind: 'done', reason: 'organization suspended' };
  }
  if (current.status === 'scheduled' && current.scheduledAt && current.scheduledAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'not-yet', runAt: current.scheduledAt };
  }

  if (current.isSuppressed) {
    const failed = await changeMessageStatus(deps.db, messageId, {
      status: 'failed',
      at: now,
      error: { code: 'SUPPRESSED', message: SUPPRESSED_MESSAGE },
    });
    if (failed) {
      recordMessageOutcome(deps, failed.row, 'suppressed');
      await dispatchOutbox(deps, failed.outbox);
    }
    return { kind: 'done', reason: 'suppressed' };
  }
  if (current.status === 'sending') {
    // a retry: the status stays, the attempt is counted
    const row = await countSendingAttempt(deps.db, messageId);
    return row ? { kind: 'send', message: row } : { kind: 'done', reason: 'changed meanwhile' };
  }
  if (current.status === 'scheduled') {
    // its own step: a crash before `sending` leaves it queued, and the job's retry carries on from there
    const queued = await changeMessageStatus(deps.db, messageId, { status: 'queued', at: now });
    if (!queued) return { kind: 'done', reason: 'changed meanwhile' };
    await dispatchOutbox(deps, queued.outbox);
  }
  const sending = await changeMessageStatus(deps.db, messageId, { status: 'sending', at: now, countsAttempt: true });
  return sending ? { kind: 'send', message: sending.row } : { kind: 'done', reason: 'changed meanwhile' };
}

/**
 * The provider accepted the message: `sending -> sent` with the provider that took it and its id, plus any
 * follow-up jobs (the sandbox's outcome) in the same statement. When a callback got there first (the message is
 * already delivered), only the provider id is filled in.
 * @example await markSent(deps, messageId, { provider: 'resend', providerMessageId: 'b7d...' });
 */
export async function markSent(deps: Deps, messageId: string, sent: { provider: string; providerMessageId: string }, followUps: OutboxItem[] = []): Promise<void> {
  const moved = await deps.batchers.messageSteps({ kind: 'sent', change: { messageId, ...sent, followUps } });
  if (!moved) await fillInProvider(deps.db, messageId, sent);
}

/** What a job asks of the worker's shared statement: to claim its message, or to mark it sent. */
export type MessageStep = { kind: 'claim'; messageId: string } | { kind: 'sent'; change: ChangeOf };

/** The send-worker's shared claims and `sent` marks (see createMessageSteps). */
export type MessageSteps = (step: MessageStep) => Promise<ChangedMessage | null>;

/**
 * The send-worker's two hot status changes, claims (`sending`) and `sent` marks, of all the jobs that reach them at
 * the same time, in ONE statement (group commit): a statement costs a socket write, a round trip and a commit
 * whatever it carries. One statement in flight at a time, so that the next gathers both kinds while it runs. A
 * message's own outcome (not claimable, not moved) still comes back to its job alone. Made with the dependencies.
 * @example const steps = createMessageSteps(deps); const claimed = await steps({ kind: 'claim', messageId });
 */
export function createMessageSteps(deps: Pick<Deps, 'db'> & DispatchDeps): MessageSteps {
  return groupCommit(
    async (items: MessageStep[]) => {
      const claims: string[] = [];
      const sent: ChangeOf[] = [];
      for (const i of items) {
        if (i.kind === 'claim') claims.push(i.messageId);
        else sent.push(i.change);
      }
      // a message being marked sent is not claimed in the same statement (its job run again beside the first):
      // it is `sending`, so the claim would find it unclaimable anyway; the single-message path decides
      const sentIds = new Set(sent.map((c) => c.messageId));
      const claimable = claims.filter((id) => !sentIds.has(id));
      const claiming: StatusChangeOfMany = {
        changes: claimable.map((messageId) => ({ messageId })),
        change: { status: 'sending', at: deps.now(), countsAttempt: true, onlyIf: claimableSql },
      };
      const marking: StatusChangeOfMany = { changes: sent, change: { status: 'sent', at: deps.now(), error: null } };
      const parts = [claiming, marking].filter((part) => part.changes.length > 0);
      const moved = await changeMessagesStatuses(deps.db, parts);
      const movedBy = { claim: moved[parts.indexOf(claiming)], sent: moved[parts.indexOf(marking)] };
      await dispatchOutbox(
        deps,
        [...(movedBy.sent?.values() ?? [])].flatMap((m) => m.outbox),
      );
      // each id's moved row goes to its first job of a kind only: a second job of the same message in one group
      // (a stalled job run again beside its first run) goes the single-message way, as if it had come a moment later
      const seen = { claim: new Set<string>(), sent: new Set<string>() };
      return items.map((i) => {
        const id = i.kind === 'claim' ? i.messageId : i.change.messageId;
        if (seen[i.kind].has(id)) return null;
        seen[i.kind].add(id);
        return movedBy[i.kind]?.get(id) ?? null;
      });
    },
    { maxSize: 200, maxInFlight: 1 },
  );
}

/**
 * The send failed for good (a permanent provider error, or the last attempt): `sending -> failed` with the error,
 * naming the provider whose answer ended it when there is one.
 * @example await markFailed(deps, messageId, { code: 'provider_rejected', message: 'Resend answered 422: ...' }, 'resend');
 */
export async function markFailed(deps: Deps, messageId: string, error: { code: string; message: string }, provider?: string): Promise<void> {
  const moved = await changeMessageStatus(deps.db, messageId, { status: 'failed', at: deps.now(), error, provider });
  if (!moved) return;
  recordMessageOutcome(deps, moved.row, 'failed');
  await dispatchOutbox(deps, moved.outbox);
}

/**
 * One provider failed this attempt (the next one may take it, or the attempt is retried): the message stays
 * `sending` and shows the error, and its history gains a `sending` entry naming the provider and the error.
 * @example await recordAttemptError(deps, messageId, { code: 'PROVIDER_UNAVAILABLE', message: 'Resend answered 500' }, 'resend');
 */
export async function recordAttemptError(deps: Deps, messageId: string, error: { code: string; message: string }, provider: string | null = null): Promise<void> {
  await recordSendingError(deps.db, messageId, error, provider, deps.now());
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

/**
 * The SMS provider refused the send because the recipient opted out (Telnyx 40300): the number gets the same
 * suppression an inbound STOP writes, and the message ends `failed` / `SUPPRESSED`, in one transaction.
 * @example if (error.reason === RECIPIENT_STOPPED) await failAsRecipientStopped(deps, message);
 */
export async function failAsRecipientStopped(deps: Deps, message: Pick<MessageRow, 'id' | 'orgId' | 'to' | 'mode'>): Promise<void> {
  const outbox = await deps.db.$transaction(async (tx) => {
    const optOut = await recordEvents(tx, await recordSmsOptOut(tx, message.orgId, message.to, message.mode));
    const failed = await changeMessageStatus(tx, message.id, {
      status: 'failed',
      at: deps.now(),
      error: { code: 'SUPPRESSED', message: `${SUPPRESSED_MESSAGE}: the provider reports the recipient texted STOP` },
    });
    return [...optOut, ...(failed?.outbox ?? [])];
  });
  await dispatchOutbox(deps, outbox);
}
