import type { Prisma } from '@tidings/db';

type Subscriptions = { email: string | null; phone: string | null; emailSubscribed: boolean; smsSubscribed: boolean };

/**
 * Keeps the shared Suppression table in step with contacts' subscription flags, in the caller's transaction and
 * set-based (at most two statements for any number of contacts): an address whose channel is unsubscribed gets an
 * `unsubscribed` row (an existing bounce or complaint row is kept as it is). `resubscribed` lists the addresses whose
 * flag the caller explicitly set back to true; only their `unsubscribed` rows are removed, never bounces or complaints.
 * @example await syncUnsubscribes(tx, orgId, [contactRow], []);
 */
export async function syncUnsubscribes(tx: Prisma.TransactionClient, orgId: string, contacts: Subscriptions[], resubscribed: string[]): Promise<void> {
  const unsubscribed = contacts.flatMap((c) => [...(c.email && !c.emailSubscribed ? [c.email] : []), ...(c.phone && !c.smsSubscribed ? [c.phone] : [])]);
  if (unsubscribed.length > 0) {
    // unnest with one array parameter: Prisma's createMany binds each value and is several times slower in bulk.
    // Times are UTC, as Prisma stores them, whatever the session's time zone.
    await tx.$executeRaw`
      INSERT INTO "Suppression" ("orgId", "recipient", "reason", "createdAt")
      SELECT ${orgId}, recipient, 'unsubscribed'::"SuppressionReason", now() AT TIME ZONE 'UTC' FROM unnest(${unsubscribed}::text[]) AS recipient
      ON CONFLICT DO NOTHING`;
  }
  if (resubscribed.length > 0) {
    await tx.suppression.deleteMany({ where: { orgId, reason: 'unsubscribed', recipient: { in: resubscribed } } });
  }
}
