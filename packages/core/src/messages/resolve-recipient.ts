import type { SendMessageBody } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { listContactAddresses } from '../contacts/contact.store.ts';
import { parseE164, parseEmail } from './recipients.ts';

type ContactAddress = { email: string | null; phone: string | null };

/** `to` as given, checked for the channel: a lower-cased email address or an E.164 number. */
function parseTo(channelType: 'email' | 'sms', to: string): string {
  if (channelType === 'email') {
    const address = parseEmail(to)?.address;
    if (!address) throw new AppError('BAD_REQUEST', 'to: must be a valid email address for channelType email');
    return address;
  }
  const number = parseE164(to);
  if (!number) throw new AppError('BAD_REQUEST', 'to: must be a valid E.164 phone number (like +14155550123) for channelType sms');
  return number;
}

/** The To recipients of a send: the first (`to` of the message) and the rest (email only). */
export type ToRecipients = { to: string; additionalTo: string[] };

/** `to` as a list of checked recipients: several only for email, each named by its index when wrong. */
function parseToList(channelType: 'email' | 'sms', to: string | string[]): string[] {
  if (!Array.isArray(to)) return [parseTo(channelType, to)];
  if (channelType === 'sms' && to.length > 1) throw new AppError('BAD_REQUEST', 'to: one recipient only for channelType sms');
  const parsed = to.map((one, index) => {
    try {
      return parseTo(channelType, one);
    } catch (error) {
      if (error instanceof AppError) throw new AppError('BAD_REQUEST', error.message.replace(/^to:/, `to.${index}:`));
      throw error;
    }
  });
  return [...new Set(parsed)];
}

/**
 * Loads the contacts a request names (one query, only this organization's) and returns a function that decides one
 * item's To recipients: `to` (a string, or for email an array: duplicates named once), or with `contactId` alone
 * the contact's email (email) or phone (sms); with both the contact's address must be among them. A `contactId`
 * not in the organization is NOT_FOUND "Contact not found", like an id in a path.
 * @example const recipientsOf = await loadRecipientResolver(deps, orgId, items); const { to, additionalTo } = recipientsOf(items[0]);
 */
export async function loadRecipientResolver({ db }: Pick<Deps, 'db'>, orgId: string, items: SendMessageBody[]): Promise<(item: SendMessageBody) => ToRecipients> {
  const ids = [...new Set(items.flatMap((i) => (i.contactId === undefined ? [] : [i.contactId])))];
  const contacts = ids.length ? await listContactAddresses(db, orgId, ids) : [];
  const byId = new Map<string, ContactAddress>(contacts.map((c) => [c.id, c]));
  const recipients = ([first, ...rest]: string[]): ToRecipients => ({ to: first!, additionalTo: rest });
  return (item) => {
    if (item.contactId === undefined) {
      if (item.to === undefined) throw new AppError('BAD_REQUEST', 'to: required (or give contactId to send to that contact)');
      return recipients(parseToList(item.channelType, item.to));
    }
    const contact = byId.get(item.contactId);
    if (!contact) throw new AppError('NOT_FOUND', 'Contact not found');
    const kind = item.channelType === 'email' ? 'email address' : 'phone number';
    const own = item.channelType === 'email' ? contact.email?.toLowerCase() : contact.phone;
    if (item.to === undefined) {
      if (!own) throw new AppError('BAD_REQUEST', `contactId: the contact has no ${kind}; give to`);
      return { to: own, additionalTo: [] };
    }
    const to = parseToList(item.channelType, item.to);
    if (!own || !to.includes(own)) throw new AppError('BAD_REQUEST', `to: does not match the contact's ${kind} (give one of them, or both agreeing; an array must include it)`);
    return recipients(to);
  };
}
