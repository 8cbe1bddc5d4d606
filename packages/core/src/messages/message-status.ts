import type { MessageHistoryStatus, MessageStatus } from '@tidings/contracts';
import { Prisma, queryRows, type Message as MessageRow } from '@tidings/db';
import { deliveryJobs, deliveryLaneOf, eventsCte, type EventType } from '../events.ts';
import { newId } from '../ids.ts';
import type { OutboxItem } from '../outbox.ts';
import { messageJsonSql } from './message.mapper.ts';

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

export type StatusChange = {
  status: MessageStatus;
  error?: { code: string; message: string } | null;
  at: Date;
  providerMessageId?: string;
  /** The provider the change is about: recorded on the status event and, when set, as the message's provider. */
  provider?: string;
  /** The change starts a send attempt: `attempts` counts it. */
  countsAttempt?: boolean;
  /** A further condition on the row (aliased "Message") for the change to happen. */
  onlyIf?: Prisma.Sql;
  /** Jobs that exist only if the change happens (the sandbox's outcome after `sent`): their outbox rows go with it. */
  followUps?: OutboxItem[];
};

const timestampColumn: Partial<Record<MessageStatus, 'sentAt' | 'deliveredAt' | 'failedAt'>> = {
  sent: 'sentAt',
  delivered: 'deliveredAt',
  failed: 'failedAt',
  bounced: 'failedAt',
  undelivered: 'failedAt',
};

// qualified: the UPDATE's FROM has an "id" and a "provider" of its own
const messageColumns = Prisma.raw(
  Object.values(Prisma.MessageScalarFieldEnum)
    .map((column) => `"Message"."${column}"`)
    .join(', '),
);

const noEvent = Prisma.sql`SELECT NULL::text, NULL::text, NULL::text, NULL::jsonb, NULL::text WHERE false`;

/** A status change that happened: the moved row, and the jobs to dispatch after commit. */
export type ChangedMessage = { row: MessageRow; outbox: OutboxItem[] };

/** What differs between the messages of one status change of many. */
export type ChangeOf = Pick<StatusChange, 'provider' | 'providerMessageId' | 'followUps'> & { messageId: string };

/**
 * THE status function: every status change of a message goes through here, as ONE statement (atomic on its own, or
 * part of the caller's transaction when `db` is one). It moves the message only when its current status may lead
 * to `change.status` (a conditional UPDATE, so two racing changes cannot both win), appends the status event,
 * records the `message.*` event with its webhook deliveries (`eventsCte`) and writes the outbox rows of those and
 * of `followUps`. Returns the moved row and the jobs to dispatch after commit, or null when the message was not in
 * a status it may move from.
 * @example const moved = await changeMessageStatus(deps.db, id, { status: 'delivered', at: deps.now() }); if (moved) await dispatchOutbox(deps, moved.outbox);
 */
export async function changeMessageStatus(db: Prisma.TransactionClient, messageId: string, change: StatusChange): Promise<ChangedMessage | null> {
  const { provider, providerMessageId, followUps, ...common } = change;
  const [moved] = await changeMessagesStatuses(db, [{ changes: [{ messageId, provider, providerMessageId, followUps }], change: common }]);
  return moved!.get(messageId) ?? null;
}

/** One change for many messages: the same status, each message with its own provider, provider id and follow-ups. */
export type StatusChangeOfMany = { changes: ChangeOf[]; change: Omit<StatusChange, 'provider' | 'providerMessageId' | 'followUps'> };

/**
 * `changeMessageStatus` for many messages in ONE statement: one or more changes, each of many messages with their
 * own provider, provider id and follow-ups (the send-worker's claims and `sent` marks together: a statement costs a
 * socket write, a round trip and a commit whatever it carries). A message is in one of them only: of two
 * changes to one row in one statement, Postgres leaves it open which takes place. At most one of them records
 * events. Returns each one's moved messages, in order.
 */
export async function changeMessagesStatuses(db: Prisma.TransactionClient, parts: StatusChangeOfMany[]): Promise<Map<string, ChangedMessage>[]> {
  const built = parts.map((part, index) => statusChangeCtes(`change${index}`, part));
  const withEvents = built.filter((b) => b.eventSource !== null);
  if (withEvents.length > 1) throw new Error('changeMessagesStatuses: at most one of the changes may record events');
  const events = withEvents[0];
  const rowsOf = (b: (typeof built)[number], index: number) =>
    b === events
      ? Prisma.sql`SELECT ${index}::int AS "_part", m.*, ARRAY(SELECT d."id" FROM new_deliveries d WHERE d."eventId" = m."_eventId") AS "deliveryIds",
          -- one time for every delivery of the statement (its events'): their partition key, for their jobs
          (SELECT max(d."createdAt") FROM new_deliveries d) AS "deliveriesCreatedAt" FROM ${b.moved} m`
      : Prisma.sql`SELECT ${index}::int AS "_part", m.*, ARRAY[]::text[] AS "deliveryIds", NULL::timestamp AS "deliveriesCreatedAt" FROM ${b.moved} m`;
  // through pg outside a transaction (queryRows): for the send-worker's grouped claims and `sent` updates, Prisma's
  // handling of the statement and its rows cost the worker more CPU than the round trip
  const rows = await queryRows<MessageRow & { _part: number; _eventId: string; _provider: string | null; deliveryIds: string[]; deliveriesCreatedAt: Date | null }>(
    db,
    Prisma.sql`
    WITH ${Prisma.join(
      built.map((b) => b.ctes),
      ', ',
    )},
    ${eventsCte(events?.eventSource ?? noEvent)}
    ${Prisma.join(built.map(rowsOf), ' UNION ALL ')}`,
  );
  const changed = parts.map(() => new Map<string, ChangedMessage>());
  for (const { _part, deliveryIds, deliveriesCreatedAt, _eventId, _provider, ...row } of rows) {
    const ownFollowUps = built[_part]!.followUps.filter((f) => f.messageId === row.id).map(({ messageId: _, ...job }) => job);
    changed[_part]!.set(row.id, {
      row,
      outbox: [
        ...deliveryJobs(
          deliveryIds.map((id) => ({ id, createdAt: deliveriesCreatedAt })),
          deliveryLaneOf(row),
        ),
        ...ownFollowUps,
      ],
    });
  }
  return changed;
}

/**
 * One change's CTEs, named after `name`: the moved rows with their event id and provider (`moved`), their status
 * events and their follow-ups' outbox rows; and the source of their `message.*` events for `eventsCte`, null when
 * the status has none.
 */
function statusChangeCtes(name: string, { changes, change }: StatusChangeOfMany) {
  // ISO strings cast to timestamp: the columns hold UTC without a zone, whatever the session's time zone
  const at = change.at.toISOString();
  const column = timestampColumn[change.status];
  const sets = [Prisma.sql`"status" = ${change.status}::"MessageStatus"`, Prisma.sql`"updatedAt" = ${at}::timestamp`];
  if (column) sets.push(Prisma.sql`${Prisma.raw(`"${column}"`)} = ${at}::timestamp`);
  if (change.error !== undefined) sets.push(Prisma.sql`"errorCode" = ${change.error?.code ?? null}, "errorMessage" = ${change.error?.message ?? null}`);
  // given (not null) where the change sets them: the others keep theirs
  if (changes.some((c) => c.providerMessageId !== undefined)) sets.push(Prisma.sql`"providerMessageId" = coalesce(i."providerMessageId", "Message"."providerMessageId")`);
  if (changes.some((c) => c.provider !== undefined)) sets.push(Prisma.sql`"provider" = coalesce(i."provider", "Message"."provider")`);
  if (change.countsAttempt) sets.push(Prisma.sql`"attempts" = "attempts" + 1`);
  const type = EVENT_OF_STATUS[change.status];
  const followUps = changes.flatMap((c) => (c.followUps ?? []).map((job) => ({ ...job, messageId: c.messageId })));
  const [input, moved, statusEvent, followUpRows] = ['input', 'moved', 'status_event', 'follow_ups'].map((cte) => Prisma.raw(`${name}_${cte}`));
  const ctes = Prisma.sql`
    ${input} AS (
      SELECT * FROM unnest(${changes.map((c) => c.messageId)}::text[], ${changes.map(() => newId('evt'))}::text[],
                           ${changes.map((c) => c.provider ?? null)}::text[], ${changes.map((c) => c.providerMessageId ?? null)}::text[])
        AS i("id", "eventId", "provider", "providerMessageId")),
    ${moved} AS (
      UPDATE "Message" SET ${Prisma.join(sets)}
      FROM ${input} i
      WHERE "Message"."id" = i."id" AND "Message"."status" = ANY (${ALLOWED_FROM[change.status]}::text[]::"MessageStatus"[]) AND ${change.onlyIf ?? Prisma.sql`true`}
      RETURNING ${messageColumns}, i."eventId" AS "_eventId", i."provider" AS "_provider"),
    ${statusEvent} AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "provider", "errorCode", "errorMessage", "createdAt")
      SELECT "id", "status", "_provider", ${change.error?.code ?? null}, ${change.error?.message ?? null}, ${at}::timestamp FROM ${moved}),
    ${followUpRows} AS (
      INSERT INTO "OutboxEntry" ("queue", "jobId", "runAt", "createdAt")
      SELECT u."queue", u."jobId", u."runAt", now() AT TIME ZONE 'UTC'
      FROM unnest(${followUps.map((f) => f.queue)}::text[], ${followUps.map((f) => f.jobId)}::text[],
                  ${followUps.map((f) => f.runAt?.toISOString() ?? null)}::timestamp[], ${followUps.map((f) => f.messageId)}::text[]) AS u("queue", "jobId", "runAt", "messageId")
      WHERE u."messageId" IN (SELECT "id" FROM ${moved})
      ON CONFLICT DO NOTHING)`;
  const eventSource = type ? Prisma.sql`SELECT m."_eventId", m."orgId", ${type}, ${messageJsonSql}, NULL::text FROM ${moved} m` : null;
  return { moved, ctes, eventSource, followUps };
}
