import type { Prisma, Contact as ContactRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { toContact } from '../contacts/contact-fields.ts';
import type { NewEvent } from '../events.ts';

/**
 * SMS opt-out, in the caller's transaction: suppresses the number with reason `stopped` (an `unsubscribed` row
 * becomes `stopped`; a bounce or complaint row stays) and sets `smsSubscribed` false on the organization's contact
 * with that phone. Returns the `contact.unsubscribed` events to record with it. Used by an inbound STOP and by a
 * provider refusing a send because the recipient opted out (Telnyx 40300), whichever provider reported it. A `test`
 * opt-out (the sandbox's) is a test suppression only: contacts are shared with live sends and stay as they are.
 * @example const events = await recordSmsOptOut(tx, orgId, '+14155550123', 'live'); await recordEvents(tx, events);
 */
export async function recordSmsOptOut(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<NewEvent[]> {
  await tx.$executeRaw`
    INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
    VALUES (${orgId}, ${phone}, ${mode}::"ApiKeyMode", 'stopped'::"SuppressionReason", now() AT TIME ZONE 'UTC')
    ON CONFLICT ("orgId", "recipient", "mode") DO UPDATE SET "reason" = 'stopped' WHERE "Suppression"."reason" = 'unsubscribed'`;
  if (mode === 'test') return [];
  const contacts = await tx.$queryRaw<ContactRow[]>`
    UPDATE "Contact" SET "smsSubscribed" = false, "updatedAt" = now() AT TIME ZONE 'UTC'
    WHERE "orgId" = ${orgId} AND "phone" = ${phone} AND "smsSubscribed" RETURNING *`;
  return contacts.map((row) => ({ orgId, type: 'contact.unsubscribed', data: toContact(row) }));
}

/**
 * SMS opt-in (an inbound START), in the caller's transaction: lifts the number's `stopped` or `unsubscribed`
 * suppression of that mode (never a bounce or complaint) and, for `live`, sets `smsSubscribed` back to true on its
 * contact. Returns the `contact.updated` events to record.
 * @example const events = await recordSmsOptIn(tx, orgId, '+14155550123', 'live');
 */
export async function recordSmsOptIn(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<NewEvent[]> {
  await tx.suppression.deleteMany({ where: { orgId, recipient: phone, mode, reason: { in: ['stopped', 'unsubscribed'] } } });
  if (mode === 'test') return [];
  const contacts = await tx.$queryRaw<ContactRow[]>`
    UPDATE "Contact" SET "smsSubscribed" = true, "updatedAt" = now() AT TIME ZONE 'UTC'
    WHERE "orgId" = ${orgId} AND "phone" = ${phone} AND NOT "smsSubscribed" RETURNING *`;
  return contacts.map((row) => ({ orgId, type: 'contact.updated', data: toContact(row) }));
}
