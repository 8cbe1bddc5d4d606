import type { Message, MessageWithEvents } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { encodeCursor, type Page } from '../pagination.ts';
import { toMessage, toStatusEvent } from './message.mapper.ts';
import { findMessageWithEvents, listMessagesPageJson } from './message-read.store.ts';
import type { MessageFilter } from './message-read.store.ts';

export type { MessageFilter } from './message-read.store.ts';

/**
 * message.list as the JSON text of its page, built by Postgres: newest first, with the filters of API.md (an index
 * scan at millions of messages per organization, see listMessagesPageJson). The API answers with this text as it is:
 * mapping a page of 100 rows through Prisma and `JSON.stringify` cost the API three times Postgres's part of the request.
 * @example const body = await listMessagesJson(deps, orgId, { limit: 20, offset: 0, status: 'delivered' });
 */
export async function listMessagesJson({ reads }: Pick<Deps, 'reads'>, orgId: string, query: MessageFilter): Promise<string> {
  const rows = await listMessagesPageJson(reads, orgId, query);
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
  const row = foundOr404(await findMessageWithEvents(db, orgId, id, mode), 'Message');
  const { events, ...message } = row;
  return { ...toMessage(message), events: events.map(toStatusEvent) };
}
