import type { Prisma } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { toContact } from '../contacts/contact-fields.ts';
import { resubscribeContactsToSms, unsubscribeContactsFromSms } from '../contacts/contact.store.ts';
import type { NewEvent } from '../events.ts';
import { deleteOptOutSuppressions, upsertStoppedSuppression } from './suppression.store.ts';

/**
 * SMS opt-out, in the caller's transaction: suppresses the number with reason `stopped` (an `unsubscribed` row
 * becomes `stopped`; a bounce or complaint row stays) and sets `smsSubscribed` false on the organization's contact
 * with that phone. Returns the `contact.unsubscribed` events to record with it. Used by an inbound STOP and by a
 * provider refusing a send because the recipient opted out (Telnyx 40300), whichever provider reported it. A `test`
 * opt-out (the sandbox's) is a test suppression only: contacts are shared with live sends and stay as they are.
 * @example const events = await recordSmsOptOut(tx, orgId, '+14155550123', 'live'); await recordEvents(tx, events);
 */
export async function recordSmsOptOut(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<NewEvent[]> {
  await upsertStoppedSuppression(tx, orgId, phone, mode);
  if (mode === 'test') return [];
  const contacts = await unsubscribeContactsFromSms(tx, orgId, phone);
  return contacts.map((row) => ({ orgId, type: 'contact.unsubscribed', data: toContact(row) }));
}

/**
 * SMS opt-in (an inbound START), in the caller's transaction: lifts the number's `stopped` or `unsubscribed`
 * suppression of that mode (never a bounce or complaint) and, for `live`, sets `smsSubscribed` back to true on its
 * contact. Returns the `contact.updated` events to record.
 * @example const events = await recordSmsOptIn(tx, orgId, '+14155550123', 'live');
 */
export async function recordSmsOptIn(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<NewEvent[]> {
  await deleteOptOutSuppressions(tx, orgId, phone, mode);
  if (mode === 'test') return [];
  const contacts = await resubscribeContactsToSms(tx, orgId, phone);
  return contacts.map((row) => ({ orgId, type: 'contact.updated', data: toContact(row) }));
}
