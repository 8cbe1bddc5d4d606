import type { Lane } from '@tidings/queue';
import { groupCommitByLane } from '../group-commit.ts';
import { unitOfWork, type UnitOfWorkDeps } from '../unit-of-work.ts';
import { claimableSql } from './delivery.store.ts';
import { changeMessagesStatuses, type ChangedMessage, type ChangeOf, type StatusChangeOfMany } from './message-status.ts';

/** What a job asks of the worker's shared statement of its lane: to claim its message, or to mark it sent. */
export type MessageStep = ({ kind: 'claim'; messageId: string } | { kind: 'sent'; change: ChangeOf }) & { lane: Lane };

/** The send-worker's shared claims and `sent` marks (see createMessageSteps). */
export type MessageSteps = (step: MessageStep) => Promise<ChangedMessage | null>;

/**
 * The send-worker's two hot status changes, claims (`sending`) and `sent` marks, of all the jobs that reach them at
 * the same time, in ONE statement (group commit): a statement costs a socket write, a round trip and a commit
 * whatever it carries. One statement in flight at a time per lane, so that the next gathers both kinds while it runs. A
 * message's own outcome (not claimable, not moved) still comes back to its job alone. Each lane has its own groups
 * (groupCommitByLane), so a broadcast's steps never hold a single send's. Made with the dependencies.
 * @example const steps = createMessageSteps(deps); const claimed = await steps({ kind: 'claim', messageId, lane: 'transactional' });
 */
export function createMessageSteps(deps: UnitOfWorkDeps): MessageSteps {
  return groupCommitByLane(
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
      const movedBy = await unitOfWork(
        deps,
        async (db, outbox) => {
          const moved = await changeMessagesStatuses(db, parts);
          const movedBy = { claim: moved[parts.indexOf(claiming)], sent: moved[parts.indexOf(marking)] };
          for (const m of movedBy.sent?.values() ?? []) outbox.add(m.outbox);
          return movedBy;
        },
        { transaction: false },
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
