import type { Prisma } from '@tidings/db';
import { insertEventsWithDeliveries } from './event.store.ts';
import { deliveryJobs, type OutboxItem } from './outbox.ts';
import type { NewEvent } from './event.store.ts';

export type { NewEvent } from './event.store.ts';

// the SQL that records events and fans them out (statements of other modules start with `eventsCte`)

/** The event types of API.md: the contract's, the one list of them. */
export type { EventType } from '@tidings/contracts';

/**
 * Records events in the caller's transaction (or on their own) and fans them out to webhooks in ONE statement. This
 * is the one place every change reports to. Returns the delivery jobs (queue `webhooks`, or `webhooks-bulk` for a broadcast's message, jobId = delivery id) to
 * dispatch after commit; the outbox relay enqueues them if that dispatch never happens.
 * @example
 * await unitOfWork(deps, async (tx, outbox) => { ...change...; outbox.add(await recordEvents(tx, [{ orgId, type: 'contact.created', data: contact }])); });
 */
export async function recordEvents(tx: Prisma.TransactionClient, events: NewEvent[]): Promise<OutboxItem[]> {
  if (events.length === 0) return [];
  // each delivery's queue as the outbox row has it (a broadcast's message's event in the bulk lane)
  return deliveryJobs(await insertEventsWithDeliveries(tx, events));
}
