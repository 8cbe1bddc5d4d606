import type { Prisma } from '@tidings/db';
import { deleteUnsubscribedSuppressions, insertUnsubscribedSuppressions } from '../suppressions/suppression.store.ts';

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
  if (unsubscribed.length > 0) await insertUnsubscribedSuppressions(tx, orgId, unsubscribed);
  if (resubscribed.length > 0) await deleteUnsubscribedSuppressions(tx, orgId, resubscribed);
}
