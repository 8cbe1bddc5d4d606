import {
  type Db,
  type Message as MessageRow,
  type MessageDayCount as MessageDayCountRow,
  type MessageStatusEvent as MessageStatusEventRow,
  Prisma,
  queryPrepared,
  type Reads,
} from '@tidings/db';
import type { Message, MessageListQuery } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import { olderThanSql } from '../pagination.ts';
import { normalizeRecipient } from './recipients.ts';
import { messageColumnsSql } from './message-json.store.ts';

/**
 * message.list's filters, `mode` (an API key sees only its own mode's messages; the dashboard gives none and sees
 * all), and `provider` for the dashboard's sandbox inbox. `provider` has no index of its own: it
 * filters the `(orgId, createdAt, id)` scan, which is short where the sandbox is most of the traffic (test
 * organizations, installs without provider credentials).
 */
export type MessageFilter = MessageListQuery & { provider?: Message['provider']; mode?: KeyMode };

/**
 * One page of message.list (`limit + 1` rows, to learn whether there are more), newest first, each message as the
 * JSON text of the API's view, built by Postgres. Each equality filter has an index `(orgId, <filter>, createdAt desc,
 * id desc)` and `tag` a GIN index, so a page stays an index scan at millions of messages per organization. May be
 * served by a replica.
 */
export async function listMessagesPageJson(reads: Reads, orgId: string, query: MessageFilter): Promise<{ id: string; createdAt: string; json: string }[]> {
  const filters = [
    Prisma.sql`m."orgId" = ${orgId}`,
    query.mode && Prisma.sql`m."mode" = ${query.mode}::"ApiKeyMode"`,
    query.provider && Prisma.sql`m."provider" = ${query.provider}`,
    query.channelType && Prisma.sql`m."channelType" = ${query.channelType}::"ChannelType"`,
    query.direction && Prisma.sql`m."direction" = ${query.direction}::"MessageDirection"`,
    query.status && Prisma.sql`m."status" = ${query.status}::"MessageStatus"`,
    query.to && Prisma.sql`m."to" = ${normalizeRecipient(query.to)}`,
    query.contactId && Prisma.sql`m."contactId" = ${query.contactId}`,
    query.broadcastId && Prisma.sql`m."broadcastId" = ${query.broadcastId}`,
    query.templateId && Prisma.sql`m."templateId" = ${query.templateId}`,
    query.tag && Prisma.sql`m."tags" @> ARRAY[${query.tag}]::text[]`,
    query.createdAfter && Prisma.sql`m."createdAt" > ${new Date(query.createdAfter).toISOString()}::timestamp`,
    query.createdBefore && Prisma.sql`m."createdAt" < ${new Date(query.createdBefore).toISOString()}::timestamp`,
    olderThanSql(query.cursor),
  ].filter((filter): filter is Prisma.Sql => typeof filter === 'object');
  // the inner query orders and limits on the indexed columns; the outer one keeps that order over the page's rows
  const statement = Prisma.sql`
    SELECT p."id", p."createdAt", row_to_json(p)::text AS "json" FROM (
      SELECT ${messageColumnsSql} FROM "Message" m WHERE ${Prisma.join(filters, ' AND ')}
      ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${query.limit + 1}::int OFFSET ${query.offset}::int) p
    ORDER BY p."createdAt" DESC, p."id" DESC`;
  // Planned once: over a year of monthly partitions, planning a page for its values cost as much as reading it, and
  // each filter but `tag` has its own (orgId, filter, createdAt, id) index whatever the value. A tag may be on most
  // messages or on a few (GIN index or not): planned for its value.
  const { rows } = await reads.run((db) => queryPrepared<{ id: string; createdAt: string; json: string }>(db, statement, { genericPlan: !query.tag }));
  return rows;
}

/** The organization's message (of `mode` when given) with its status history, oldest first; null when none. */
export function findMessageWithEvents(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<(MessageRow & { events: MessageStatusEventRow[] }) | null> {
  return db.message.findFirst({ where: { id, orgId, ...(mode && { mode }) }, include: { events: { orderBy: { id: 'asc' } } } });
}

/** The organization's message (of `mode` when given), or null. */
export function findMessageInOrg(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<MessageRow | null> {
  return db.message.findFirst({ where: { id, orgId, ...(mode && { mode }) } });
}

/** What a report about a message needs of it. */
const reportedMessageSelect = { id: true, orgId: true, to: true, provider: true, channelType: true, mode: true, broadcastId: true } as const;
type ReportedMessageRow = Prisma.MessageGetPayload<{ select: typeof reportedMessageSelect }>;

/** The message `provider` knows by its own id, or null. */
export function findMessageByProviderMessageId(db: Db, provider: string, providerMessageId: string): Promise<ReportedMessageRow | null> {
  return db.message.findFirst({ where: { providerMessageId, provider }, select: reportedMessageSelect });
}

/** The message of this id (any provider's), with what a report needs of it, or null. */
export function findReportedMessageById(db: Db, id: string): Promise<ReportedMessageRow | null> {
  return db.message.findUnique({ where: { id }, select: reportedMessageSelect });
}

/** One UTC day's outcome counts of one channel's outbound messages. */
export type MessageDayCountsRow = { day: string; channelType: 'email' | 'sms'; sent: number; delivered: number; bounced: number; failed: number };

/**
 * Counts per day and channel of the organization's outbound messages created in `[from, to)`, one grouped scan. May
 * be served by a replica.
 */
export function countMessagesByDay(reads: Reads, orgId: string, from: Date, to: Date): Promise<MessageDayCountsRow[]> {
  return reads.run(
    (db) => db.$queryRaw<MessageDayCountsRow[]>`
    SELECT to_char("d", 'YYYY-MM-DD') AS "day", "channelType", "sent", "delivered", "bounced", "failed" FROM (
      SELECT date_trunc('day', "createdAt") AS "d", "channelType"::text AS "channelType",
             count(*) FILTER (WHERE "status" IN ('sent', 'delivered', 'bounced', 'undelivered'))::int AS "sent",
             count(*) FILTER (WHERE "status" = 'delivered')::int AS "delivered",
             count(*) FILTER (WHERE "status" = 'bounced')::int AS "bounced",
             -- a send Tidings refused to a suppressed recipient did what it should: no failure of delivery
             count(*) FILTER (WHERE "status" IN ('failed', 'undelivered') AND "errorCode" IS DISTINCT FROM 'SUPPRESSED')::int AS "failed"
      FROM "Message"
      WHERE "orgId" = ${orgId} AND "createdAt" >= ${from} AND "createdAt" < ${to} AND "status" <> 'received'
      GROUP BY 1, 2) AS "grouped"
    ORDER BY 1, 2`,
  );
}

/** The organization's kept counts (MessageDayCount) of these days. May be served by a replica. */
export function findMessageDayCounts(reads: Reads, orgId: string, days: Date[]): Promise<MessageDayCountRow[]> {
  return reads.run((db) => db.messageDayCount.findMany({ where: { orgId, day: { in: days } } }));
}

/** Keeps the counts of settled days; a day kept already (by a view at the same time) stays as it is. */
export async function insertMessageDayCounts(db: Db, rows: Prisma.MessageDayCountCreateManyInput[]): Promise<void> {
  // two views at once both count; the first write wins, the second is the same
  await db.messageDayCount.createMany({ data: rows, skipDuplicates: true });
}

/** The number that last sent an SMS to each of `recipients` (the sticky sender), by the (orgId, to, createdAt) index. */
export function findLastSenders(db: Db, orgId: string, recipients: string[]): Promise<{ to: string; from: string }[]> {
  return db.$queryRaw<{ to: string; from: string }[]>`
    SELECT DISTINCT ON (m."to") m."to", m."from" FROM "Message" m
    WHERE m."orgId" = ${orgId} AND m."to" = ANY(${recipients}::text[]) AND m."channelType" = 'sms' AND m."direction" = 'outbound'
    ORDER BY m."to", m."createdAt" DESC`;
}
