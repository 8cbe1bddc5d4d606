import type { MessageStatus } from '@tidings/contracts';
import { Prisma, queryRows, type Db, type Message as MessageRow, type SmsKeyword } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { eventsCte } from '../event.store.ts';
import type { EventType } from '../events.ts';
import { newId } from '../ids.ts';
import type { OutboxItem } from '../outbox.ts';
import { outboxInsert } from '../outbox.store.ts';
import { messageJsonSql } from './message-json.store.ts';

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

/** What differs between the messages of one status change of many. */
export type ChangeOf = Pick<StatusChange, 'provider' | 'providerMessageId' | 'followUps'> & { messageId: string };

/** One change for many messages: the same status, each message with its own provider, provider id and follow-ups. */
export type StatusChangeOfMany = { changes: ChangeOf[]; change: Omit<StatusChange, 'provider' | 'providerMessageId' | 'followUps'> };

// Status changes (message-status.ts)

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

/** One status change of many messages as the statement takes it: the statuses it moves from, and its event type if it has one. */
export type MessagesStatusUpdate = StatusChangeOfMany & { allowedFrom: MessageStatus[]; eventType: EventType | null };

/** A moved message with its part (index of its update), event id, provider, and the deliveries of the statement's events. */
export type MovedMessageRow = MessageRow & { _part: number; _eventId: string; _provider: string | null; deliveryIds: string[]; deliveriesCreatedAt: Date | null };

/**
 * The one statement of every status change (changeMessagesStatuses): for each update, the conditional UPDATE of its
 * messages, their status events and their follow-ups' outbox rows; the `message.*` events (with their webhook
 * deliveries) of at most one of them. Returns the moved rows of all of them.
 */
export async function updateMessagesStatuses(db: Prisma.TransactionClient, parts: MessagesStatusUpdate[]): Promise<MovedMessageRow[]> {
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
  return queryRows<MovedMessageRow>(
    db,
    Prisma.sql`
    WITH ${Prisma.join(
      built.map((b) => b.ctes),
      ', ',
    )},
    ${eventsCte(events?.eventSource ?? noEvent)}
    ${Prisma.join(built.map(rowsOf), ' UNION ALL ')}`,
  );
}

/**
 * One change's CTEs, named after `name`: the moved rows with their event id and provider (`moved`), their status
 * events and their follow-ups' outbox rows; and the source of their `message.*` events for `eventsCte`, null when
 * the status has none.
 */
function statusChangeCtes(name: string, { changes, change, allowedFrom, eventType }: MessagesStatusUpdate) {
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
  // a held message (quiet hours, a broadcast's sendRate) that is due waits for nothing any more
  if (change.status === 'queued') sets.push(Prisma.sql`"deferredUntil" = NULL, "deferredReason" = NULL`);
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
      WHERE "Message"."id" = i."id" AND "Message"."status" = ANY (${allowedFrom}::text[]::"MessageStatus"[]) AND ${change.onlyIf ?? Prisma.sql`true`}
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
  const eventSource = eventType ? Prisma.sql`SELECT m."_eventId", m."orgId", ${eventType}, ${messageJsonSql}, NULL::text FROM ${moved} m` : null;
  return { moved, ctes, eventSource };
}

// Provider events: a callback event is applied once

/**
 * The statement that claims a provider's event: one row back the first time, none for a replay. A concurrent twin
 * waits on the unique key until the first commits (then none) or rolls back (then it claims it), so run it in the
 * transaction (or statement) that carries out the event's effect and the effect happens once.
 * @example await db.$queryRaw`WITH claimed AS (${claimProviderEventSql('resend', svixId)}) ...`;
 */
export const claimProviderEventSql = (provider: string, eventId: string): Prisma.Sql =>
  Prisma.sql`INSERT INTO "ProviderEvent" ("provider", "eventId") VALUES (${provider}, ${eventId}) ON CONFLICT DO NOTHING RETURNING 1`;

/**
 * Claims a provider's event in `tx`, the transaction that carries out its effect: true the first time, false for a
 * replay (see claimProviderEventSql).
 * @example if (eventId && !(await claimProviderEvent(tx, 'resend', eventId))) return null;
 */
export async function claimProviderEvent(tx: Prisma.TransactionClient, provider: string, eventId: string): Promise<boolean> {
  return (await tx.$queryRaw<unknown[]>(claimProviderEventSql(provider, eventId))).length > 0;
}

// Cancel and reschedule (cancel-message.ts, reschedule-message.ts)

/** With `mode` (an API key's), another mode's message is not found. */
export function findMessageChannel(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<Pick<MessageRow, 'channelType'> | null> {
  return db.message.findFirst({ where: { id, orgId, ...(mode && { mode }) }, select: { channelType: true } });
}

/** With `mode` (an API key's), another mode's message is not found. */
export function findMessageRef(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<Pick<MessageRow, 'id' | 'channelType'> | null> {
  return db.message.findFirst({ where: { id, orgId, ...(mode && { mode }) }, select: { id: true, channelType: true } });
}

export function findMessageOrThrow(db: Db, id: string): Promise<MessageRow> {
  return db.message.findUniqueOrThrow({ where: { id } });
}

export function findMessageStatusOrThrow(db: Db, id: string): Promise<Pick<MessageRow, 'status'>> {
  return db.message.findUniqueOrThrow({ where: { id }, select: { status: true } });
}

/**
 * Moves a message still `scheduled` to `runAt` and writes the outbox row of its `job` in the same statement (only
 * when it moved). Returns how many messages moved: 1, or 0 when it is not scheduled (or not the organization's).
 */
export async function rescheduleScheduledMessage(db: Db, orgId: string, id: string, { runAt, now, job }: { runAt: Date; now: Date; job: OutboxItem }): Promise<number> {
  const [moved] = await db.$queryRaw<{ count: number }[]>`
    WITH moved AS (
      UPDATE "Message" SET "scheduledAt" = ${runAt}, "updatedAt" = ${now}
      WHERE "id" = ${id} AND "orgId" = ${orgId} AND "status" = 'scheduled' RETURNING "id"),
    job AS (${outboxInsert([job], Prisma.sql`EXISTS (SELECT 1 FROM moved)`)})
    SELECT count(*)::int AS "count" FROM moved`;
  return moved?.count ?? 0;
}

// Inbound (inbound.ts)

/** Held until `tx` ends: the same callback delivered twice at once waits for the first's commit, then finds its message. */
export async function lockInboundMessage(tx: Prisma.TransactionClient, provider: string, providerMessageId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`inbound:${provider}:${providerMessageId}`}, 0))`;
}

export function findInboundMessage(tx: Prisma.TransactionClient, orgId: string, provider: string, providerMessageId: string): Promise<MessageRow | null> {
  return tx.message.findFirst({ where: { orgId, provider, providerMessageId, direction: 'inbound' } });
}

/** The message with its `received` history entry. */
export function insertReceivedMessage(tx: Prisma.TransactionClient, row: Prisma.MessageUncheckedCreateInput & { createdAt: Date }): Promise<MessageRow> {
  return tx.message.create({ data: { ...row, events: { create: { status: 'received', createdAt: row.createdAt } } } });
}

// Broadcasts' failed messages (broadcast.service.ts, broadcast-retry.ts)

/** How many failed messages of each broadcast have each error code, through the organization's (orgId, status) index. */
export function countFailedReasons(db: Db, orgId: string, ids: string[]): Promise<{ broadcastId: string; code: string; count: number }[]> {
  return db.$queryRaw<{ broadcastId: string; code: string; count: number }[]>`
        SELECT "broadcastId", coalesce("errorCode", 'UNKNOWN') AS "code", count(*)::int AS "count" FROM "Message"
        WHERE "orgId" = ${orgId} AND "status" IN ('failed', 'undelivered') AND "broadcastId" = ANY(${ids}::text[])
        GROUP BY 1, 2 ORDER BY 2`;
}

/** The broadcast's failed messages whose error is one of `errorCodes`, and whether each has content (was rendered). */
export function selectRetryableMessages(
  db: Db,
  orgId: string,
  broadcastId: string,
  errorCodes: readonly string[],
): Promise<{ id: string; contactId: string | null; hasContent: boolean }[]> {
  return db.$queryRaw<{ id: string; contactId: string | null; hasContent: boolean }[]>`
    SELECT "id", "contactId", ("subject" IS NOT NULL OR "html" IS NOT NULL OR "text" IS NOT NULL OR "body" IS NOT NULL) AS "hasContent"
    FROM "Message" WHERE "orgId" = ${orgId} AND "status" = 'failed' AND "broadcastId" = ${broadcastId} AND "errorCode" = ANY(${errorCodes}::text[])`;
}

// SMS keyword replies (keyword-replies.ts)

/** The answer to an inbound keyword: an outbound SMS, `queued` with its first status event, marked `keywordReply`. */
export async function insertKeywordReply(
  tx: Prisma.TransactionClient,
  reply: {
    id: string;
    orgId: string;
    to: string;
    from: string;
    body: string;
    segments: number;
    contactId: string | null;
    provider: string;
    mode: KeyMode;
    keywordReply: SmsKeyword;
    inReplyTo: string;
    at: Date;
  },
): Promise<MessageRow> {
  return tx.message.create({
    data: {
      id: reply.id,
      orgId: reply.orgId,
      channelType: 'sms',
      direction: 'outbound',
      to: reply.to,
      from: reply.from,
      body: reply.body,
      segments: reply.segments,
      contactId: reply.contactId,
      status: 'queued',
      provider: reply.provider,
      mode: reply.mode,
      keywordReply: reply.keywordReply,
      metadata: { inReplyTo: reply.inReplyTo },
      createdAt: reply.at,
      updatedAt: reply.at,
      events: { create: { status: 'queued', createdAt: reply.at } },
    },
  });
}

// Stranded messages (requeue-stranded.ts)

/** What requeueStrandedMessages needs of an overdue message. */
export type OverdueMessage = Pick<MessageRow, 'id' | 'orgId' | 'channelType' | 'broadcastId' | 'scheduledAt' | 'updatedAt'>;

/**
 * Overdue messages of one kind (`unfinished`: queued or sending since before `cutoff`; `scheduled`: scheduled for
 * before it), oldest first, after `after` (keyset); each kind has its partial index.
 */
export function listOverdueMessages(
  db: Db,
  kind: 'unfinished' | 'scheduled',
  cutoff: string,
  { after, limit }: { after: { at: Date; id: string } | null; limit: number },
): Promise<OverdueMessage[]> {
  const column = Prisma.raw(kind === 'unfinished' ? '"updatedAt"' : '"scheduledAt"');
  const status = Prisma.raw(kind === 'unfinished' ? `"status" IN ('queued', 'sending')` : `"status" = 'scheduled'`);
  const page = after ? Prisma.sql`AND (${column}, "id") > (${after.at.toISOString()}::timestamp, ${after.id})` : Prisma.empty;
  return db.$queryRaw<OverdueMessage[]>`
    SELECT "id", "orgId", "channelType", "broadcastId", "scheduledAt", "updatedAt" FROM "Message"
    WHERE ${status} AND ${column} < ${cutoff}::timestamp ${page}
    ORDER BY ${column}, "id" LIMIT ${limit}`;
}

// Sandbox outcome (sandbox-outcome.ts)

export function findMessageRecipient(db: Db, id: string): Promise<Pick<MessageRow, 'to'> | null> {
  return db.message.findUnique({ where: { id }, select: { to: true } });
}
