import {
  type Db,
  type Message as MessageRow,
  type MessageDayCount as MessageDayCountRow,
  type MessageStatusEvent as MessageStatusEventRow,
  Prisma,
  queryPrepared,
} from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { olderThanSql } from '../pagination.ts';
import type { MessageFilter } from './query-messages.ts';
import { normalizeRecipient } from './recipients.ts';

const sqlIso = (column: string) => `to_char(m."${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `toMessage` in SQL, field by field in its order, over a row aliased `m` (test/message-json.test.ts holds the two equal). */
const MESSAGE_FIELDS: [name: string, sql: string][] = [
  ...['id', 'channelType', 'direction', 'to'].map((name): [string, string] => [name, `m."${name}"`]),
  ['toAll', `array_prepend(m."to", coalesce(m."additionalTo", '{}'))`],
  ['from', 'm."from"'],
  ...['cc', 'bcc', 'replyTo'].map((name): [string, string] => [name, `m."${name}"`]),
  ['headers', `coalesce(m."headers", '{}'::jsonb)`],
  ...['subject', 'text', 'html', 'body'].map((name): [string, string] => [name, `m."${name}"`]),
  ['mediaUrls', 'm."mediaUrls"'],
  [
    'attachments',
    // most messages have none: the subquery per row was a fifth of a list page's time in Postgres
    `CASE WHEN m."attachments" = '[]'::jsonb THEN m."attachments" ELSE (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a->'id', 'filename', a->'filename', 'contentType', a->'contentType',
    'size', a->'size', 'contentId', a->'contentId') ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(m."attachments") WITH ORDINALITY AS x(a, n)) END`,
  ],
  ...['templateId', 'templateVersion', 'contactId', 'broadcastId', 'status', 'segments', 'provider', 'mode', 'providerMessageId'].map((name): [string, string] => [
    name,
    `m."${name}"`,
  ]),
  ['error', `CASE WHEN m."errorCode" IS NULL THEN NULL ELSE jsonb_build_object('code', m."errorCode", 'message', coalesce(m."errorMessage", '')) END`],
  ['attempts', 'm."attempts"'],
  ['tags', 'm."tags"'],
  ['metadata', `coalesce(m."metadata", '{}'::jsonb)`],
  ...['scheduledAt', 'sentAt', 'deliveredAt', 'failedAt', 'openedAt', 'clickedAt', 'createdAt', 'updatedAt'].map((name): [string, string] => [name, sqlIso(name)]),
];

/** The message as a jsonb value, for statements that change a message and record its event in one go. */
export const messageJsonSql = Prisma.raw(`jsonb_build_object(${MESSAGE_FIELDS.map(([name, sql]) => `'${name}', ${sql}`).join(', ')})`);

/**
 * The message as columns named like its fields, for `row_to_json` over them: JSON text with `toMessage`'s key order,
 * which a list can hand to the client as it is.
 */
export const messageColumnsSql = Prisma.raw(MESSAGE_FIELDS.map(([name, sql]) => `${sql} AS "${name}"`).join(', '));

/**
 * One page of message.list (`limit + 1` rows, to learn whether there are more), newest first, each message as the
 * JSON text of the API's view, built by Postgres. Each equality filter has an index `(orgId, <filter>, createdAt desc,
 * id desc)` and `tag` a GIN index, so a page stays an index scan at millions of messages per organization.
 */
export async function listMessagesPageJson(db: Db, orgId: string, query: MessageFilter): Promise<{ id: string; createdAt: string; json: string }[]> {
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
  const { rows } = await queryPrepared<{ id: string; createdAt: string; json: string }>(db, statement, { genericPlan: !query.tag });
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

/** Counts per day and channel of the organization's outbound messages created in `[from, to)`, one grouped scan. */
export function countMessagesByDay(db: Db, orgId: string, from: Date, to: Date): Promise<MessageDayCountsRow[]> {
  return db.$queryRaw<MessageDayCountsRow[]>`
    SELECT to_char("d", 'YYYY-MM-DD') AS "day", "channelType", "sent", "delivered", "bounced", "failed" FROM (
      SELECT date_trunc('day', "createdAt") AS "d", "channelType"::text AS "channelType",
             count(*) FILTER (WHERE "status" IN ('sent', 'delivered', 'bounced', 'undelivered'))::int AS "sent",
             count(*) FILTER (WHERE "status" = 'delivered')::int AS "delivered",
             count(*) FILTER (WHERE "status" = 'bounced')::int AS "bounced",
             count(*) FILTER (WHERE "status" IN ('failed', 'undelivered'))::int AS "failed"
      FROM "Message"
      WHERE "orgId" = ${orgId} AND "createdAt" >= ${from} AND "createdAt" < ${to} AND "status" <> 'received'
      GROUP BY 1, 2) AS "grouped"
    ORDER BY 1, 2`;
}

/** The organization's kept counts (MessageDayCount) of these days. */
export function findMessageDayCounts(db: Db, orgId: string, days: Date[]): Promise<MessageDayCountRow[]> {
  return db.messageDayCount.findMany({ where: { orgId, day: { in: days } } });
}

/** Keeps the counts of settled days; a day kept already (by a view at the same time) stays as it is. */
export async function insertMessageDayCounts(db: Db, rows: Prisma.MessageDayCountCreateManyInput[]): Promise<void> {
  // two views at once both count; the first write wins, the second is the same
  await db.messageDayCount.createMany({ data: rows, skipDuplicates: true });
}
