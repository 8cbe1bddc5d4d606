import type { Message, MessageListQuery, MessageWithEvents } from '@tidings/contracts';
import { Prisma, queryPrepared } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { encodeCursor, olderThanSql, type Page } from '../pagination.ts';
import { messageColumnsSql, toMessage, toStatusEvent } from './message.mapper.ts';
import { normalizeRecipient } from './recipients.ts';

/**
 * message.list's filters, `mode` (an API key sees only its own mode's messages; the dashboard gives none and sees
 * all), and `provider` for the dashboard's sandbox inbox. `provider` has no index of its own: it
 * filters the `(orgId, createdAt, id)` scan, which is short where the sandbox is most of the traffic (test
 * organizations, installs without provider credentials).
 */
export type MessageFilter = MessageListQuery & { provider?: Message['provider']; mode?: KeyMode };

/**
 * message.list as the JSON text of its page, built by Postgres: newest first, with the filters of API.md. Each
 * equality filter has an index `(orgId, <filter>, createdAt desc, id desc)` and `tag` a GIN index, so a page stays an
 * index scan at millions of messages per organization. The API answers with this text as it is: mapping a page of
 * 100 rows through Prisma and `JSON.stringify` cost the API three times Postgres's part of the request.
 * @example const body = await listMessagesJson(deps, orgId, { limit: 20, offset: 0, status: 'delivered' });
 */
export async function listMessagesJson({ db }: Deps, orgId: string, query: MessageFilter): Promise<string> {
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
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  const nextCursor = hasMore && last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null;
  return `{"data":[${page.map((row) => row.json).join(',')}],"hasMore":${hasMore},"nextCursor":${JSON.stringify(nextCursor)}}`;
}

/** message.list as objects (the dashboard's page). */
export async function listMessages(deps: Deps, orgId: string, query: MessageFilter): Promise<Page<Message>> {
  return JSON.parse(await listMessagesJson(deps, orgId, query)) as Page<Message>;
}

/**
 * message.get: the message with its status history, oldest first. Another organization's id is NOT_FOUND, and so
 * is another mode's when `mode` is given (an API key's).
 * @example const message = await getMessage(deps, orgId, 'msg_...', 'live');
 */
export async function getMessage({ db }: Deps, orgId: string, id: string, mode?: KeyMode): Promise<MessageWithEvents> {
  const row = foundOr404(await db.message.findFirst({ where: { id, orgId, ...(mode && { mode }) }, include: { events: { orderBy: { id: 'asc' } } } }), 'Message');
  const { events, ...message } = row;
  return { ...toMessage(message), events: events.map(toStatusEvent) };
}
