import type { MessageHistoryStatus, MessageStatus } from '@tidings/contracts';
import type { Message as MessageRow, Prisma } from '@tidings/db';
import type { Deps } from '../deps.ts';
import type { EventType } from '../events.ts';
import { deliveryJobs, deliveryLaneOf, type OutboxItem } from '../outbox.ts';
import { updateMessagesStatuses } from './message.store.ts';
import type { StatusChange, StatusChangeOfMany } from './message.store.ts';

export type { StatusChange, ChangeOf, StatusChangeOfMany } from './message.store.ts';

/**
 * From which statuses each status may be reached. Statuses only move forward: a late or repeated callback finds
 * the message past the statuses it may move from and changes nothing.
 */
export const ALLOWED_FROM: Record<MessageStatus, MessageStatus[]> = {
  scheduled: [],
  queued: ['scheduled'],
  sending: ['queued'],
  sent: ['sending'],
  delivered: ['sending', 'sent'],
  bounced: ['sending', 'sent'],
  undelivered: ['sending', 'sent'],
  failed: ['scheduled', 'queued', 'sending', 'sent'],
  canceled: ['scheduled', 'queued'],
  // an inbound message is created received; nothing moves to it
  received: [],
};

/** The webhook event type of each status-history entry; `scheduled` and `sending` have none. */
export const EVENT_OF_STATUS: Partial<Record<MessageHistoryStatus, EventType>> = {
  queued: 'message.queued',
  sent: 'message.sent',
  delivered: 'message.delivered',
  failed: 'message.failed',
  bounced: 'message.bounced',
  undelivered: 'message.undelivered',
  canceled: 'message.canceled',
  received: 'message.received',
  opened: 'message.opened',
  clicked: 'message.clicked',
  complained: 'message.complained',
  delayed: 'message.delayed',
};

/** A status change that happened: the moved row, and the jobs to dispatch after commit. */
export type ChangedMessage = { row: MessageRow; outbox: OutboxItem[] };

/**
 * THE status function: every status change of a message goes through here, as ONE statement (atomic on its own, or
 * part of the caller's transaction when `db` is one). It moves the message only when its current status may lead
 * to `change.status` (a conditional UPDATE, so two racing changes cannot both win), appends the status event,
 * records the `message.*` event with its webhook deliveries (`eventsCte`) and writes the outbox rows of those and
 * of `followUps`. Returns the moved row and the jobs to dispatch after commit, or null when the message was not in
 * a status it may move from.
 * @example await unitOfWork(deps, async (db, outbox) => outbox.add((await changeMessageStatus(db, id, { status: 'delivered', at: deps.now() }))?.outbox), { transaction: false });
 */
export async function changeMessageStatus(db: Prisma.TransactionClient, messageId: string, change: StatusChange): Promise<ChangedMessage | null> {
  const { provider, providerMessageId, followUps, ...common } = change;
  const [moved] = await changeMessagesStatuses(db, [{ changes: [{ messageId, provider, providerMessageId, followUps }], change: common }]);
  return moved!.get(messageId) ?? null;
}

/**
 * `changeMessageStatus` for many messages in ONE statement: one or more changes, each of many messages with their
 * own provider, provider id and follow-ups (the send-worker's claims and `sent` marks together: a statement costs a
 * socket write, a round trip and a commit whatever it carries). A message is in one of them only: of two
 * changes to one row in one statement, Postgres leaves it open which takes place. At most one of them records
 * events. Returns each one's moved messages, in order.
 */
export async function changeMessagesStatuses(db: Prisma.TransactionClient, parts: StatusChangeOfMany[]): Promise<Map<string, ChangedMessage>[]> {
  const rows = await updateMessagesStatuses(
    db,
    parts.map((part) => ({ ...part, allowedFrom: ALLOWED_FROM[part.change.status], eventType: EVENT_OF_STATUS[part.change.status] ?? null })),
  );
  const changed = parts.map(() => new Map<string, ChangedMessage>());
  for (const { _part, deliveryIds, deliveriesCreatedAt, _eventId, _provider, ...row } of rows) {
    const ownFollowUps = parts[_part]!.changes.filter((c) => c.messageId === row.id).flatMap((c) => (c.followUps ?? []).map((job) => ({ ...job })));
    changed[_part]!.set(row.id, {
      row,
      outbox: [
        ...deliveryJobs(
          deliveryIds.map((id) => ({ id, orgId: row.orgId, createdAt: deliveriesCreatedAt })),
          deliveryLaneOf(row),
        ),
        ...ownFollowUps,
      ],
    });
  }
  return changed;
}

/** How a message ended: its final status, with `suppressed` told apart from other failures. */
export type MessageOutcome = 'delivered' | 'bounced' | 'undelivered' | 'failed' | 'suppressed';

/**
 * Records that a message reached its final outcome, once, by the process that moved it there: one log line and
 * `tidings_messages_total{channel,status}` (what a delivery-rate alert divides). Call only after the status change
 * committed, so a change that lost a race counts nothing.
 * @example const moved = await changeMessageStatus(deps.db, id, change); if (moved) recordMessageOutcome(deps, moved.row, 'failed');
 */
export function recordMessageOutcome(
  { logger, metrics }: Pick<Deps, 'logger' | 'metrics'>,
  row: Pick<MessageRow, 'id' | 'orgId' | 'channelType' | 'provider' | 'errorCode' | 'attempts'>,
  outcome: MessageOutcome,
): void {
  metrics.messages.inc({ channel: row.channelType, status: outcome });
  const line = { messageId: row.id, orgId: row.orgId, channel: row.channelType, provider: row.provider, outcome, errorCode: row.errorCode ?? undefined, attempts: row.attempts };
  if (outcome === 'delivered') logger.info(line, 'message delivered');
  else logger.warn(line, `message ${outcome}`);
}
