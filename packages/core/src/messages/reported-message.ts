import type { Deps } from '../deps.ts';
import { findMessageByProviderMessageId, findReportedMessageById } from './message-read.store.ts';

/**
 * The message a report is about. A provider's report names it by `providerMessageId` (its own id, which only that
 * provider's account can hold); `messageId` is then only a hint echoed from the tags it was sent with. The sandbox,
 * which is us, names it by `messageId` alone.
 */
export type ReportedMessageRef = {
  provider: string;
  messageId?: string;
  providerMessageId?: string;
  /** The provider's id of this event (a callback's): its effect happens once, however often it is delivered. */
  eventId?: string;
};

/**
 * Finds the message a report names, only if that provider handles it (a report from one provider can never touch
 * another's message). A provider's report is found by the provider's own id; an echoed tag that names another
 * message finds nothing (a tenant's own tags cannot point its events at someone else's message). Null when none.
 * @example const message = await findReportedMessage(deps, { provider: 'resend', providerMessageId: 'e1...' });
 */
export async function findReportedMessage({ db }: Pick<Deps, 'db'>, ref: ReportedMessageRef) {
  const message = ref.providerMessageId
    ? await findMessageByProviderMessageId(db, ref.provider, ref.providerMessageId)
    : ref.messageId
      ? await findReportedMessageById(db, ref.messageId)
      : null;
  if (!message || message.provider !== ref.provider) return null;
  return ref.messageId && ref.messageId !== message.id ? null : message;
}
