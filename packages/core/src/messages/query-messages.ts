import type { Message, MessageListQuery, MessageWithEvents } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { paginate, type Page } from '../pagination.ts';
import { toMessage, toStatusEvent } from './message.mapper.ts';
import { normalizeRecipient } from './recipients.ts';

/**
 * message.list's filters, `mode` (an API key sees only its own mode's messages; the dashboard gives none and sees
 * all), and `provider` for the dashboard's sandbox inbox. `provider` has no index of its own: it
 * filters the `(orgId, createdAt, id)` scan, which is short where the sandbox is most of the traffic (test
 * organizations, installs without provider credentials).
 */
export type MessageFilter = MessageListQuery & { provider?: Message['provider']; mode?: KeyMode };

/**
 * message.list: newest first, with the filters of API.md. Each equality filter has an index
 * `(orgId, <filter>, createdAt desc, id desc)` and `tag` a GIN index, so a page stays an index scan at millions of
 * messages per organization.
 * @example const page = await listMessages(deps, orgId, { limit: 20, offset: 0, status: 'delivered' });
 */
export async function listMessages({ db }: Deps, orgId: string, query: MessageFilter): Promise<Page<Message>> {
  const where: Prisma.MessageWhereInput = {
    orgId,
    ...(query.mode && { mode: query.mode }),
    ...(query.provider && { provider: query.provider }),
    ...(query.channelType && { channelType: query.channelType }),
    ...(query.direction && { direction: query.direction }),
    ...(query.status && { status: query.status }),
    ...(query.to && { to: normalizeRecipient(query.to) }),
    ...(query.contactId && { contactId: query.contactId }),
    ...(query.templateId && { templateId: query.templateId }),
    ...(query.tag && { tags: { has: query.tag } }),
    ...((query.createdAfter || query.createdBefore) && {
      createdAt: {
        ...(query.createdAfter && { gt: new Date(query.createdAfter) }),
        ...(query.createdBefore && { lt: new Date(query.createdBefore) }),
      },
    }),
  };
  return paginate(query, ({ where: keyset, ...page }) => db.message.findMany({ where: { AND: [where, keyset] }, ...page }), toMessage);
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
