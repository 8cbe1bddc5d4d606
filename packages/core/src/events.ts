import type { Prisma } from '@tidings/db';
import { webhookQueueOf, type Lane, type WebhookQueue } from '@tidings/queue';
import { insertEventsWithDeliveries } from './event.store.ts';
import type { OutboxItem } from './outbox.ts';

// the SQL that records events and fans them out (statements of other modules start with `eventsCte`)

/** The event types of API.md. */
export type EventType =
  | 'message.queued'
  | 'message.sent'
  | 'message.delivered'
  | 'message.failed'
  | 'message.bounced'
  | 'message.undelivered'
  | 'message.canceled'
  | 'message.received'
  | 'message.opened'
  | 'message.clicked'
  | 'message.complained'
  | 'message.delayed'
  | 'contact.created'
  | 'contact.updated'
  | 'contact.deleted'
  | 'contact.unsubscribed'
  | 'broadcast.sending'
  | 'broadcast.sent'
  | 'broadcast.canceled'
  | 'emailDomain.verified'
  | 'emailDomain.failed'
  | 'phoneNumber.purchased'
  | 'phoneNumber.released'
  | 'webhook.test';

export type NewEvent = {
  orgId: string;
  type: EventType;
  /** The resource as the API returns it. */
  data: Prisma.InputJsonValue;
  /** Deliver to this endpoint only, subscribed or not (webhook.test); otherwise to every subscribed endpoint. */
  webhookId?: string;
};

/**
 * The lane of the deliveries of a message's events: bulk for a broadcast's message (as its send job), else
 * transactional; the same rule the statement of `eventsCte` writes into the outbox.
 * @example deliveryLaneOf({ broadcastId: 'brd_1' }) // 'bulk'
 */
export function deliveryLaneOf(message: { broadcastId?: string | null }): Lane {
  return message.broadcastId ? 'bulk' : 'transactional';
}

/**
 * The delivery jobs a statement built on `eventsCte` created, for dispatchOutbox after commit; with each delivery's
 * `createdAt` where the statement returned it, so the worker reads only its partition. `lane`: that of their events
 * (`deliveryLaneOf`), transactional unless they are about a broadcast's message.
 */
export function deliveryJobs(rows: { id: string; createdAt?: Date | null; queue?: WebhookQueue }[], lane: Lane = 'transactional'): OutboxItem[] {
  const queue = webhookQueueOf(lane);
  return rows.map((row) => ({ queue: row.queue ?? queue, jobId: row.id, createdAt: row.createdAt ?? undefined }));
}

/**
 * Records events in the caller's transaction (or on their own) and fans them out to webhooks in ONE statement. This
 * is the one place every change reports to. Returns the delivery jobs (queue `webhooks`, or `webhooks-bulk` for a broadcast's message, jobId = delivery id) to
 * dispatch after commit; the outbox relay enqueues them if that dispatch never happens.
 * @example
 * const outbox = await db.$transaction(async (tx) => { ...change...; return recordEvents(tx, [{ orgId, type: 'contact.created', data: contact }]); });
 * await dispatchOutbox(deps, outbox);
 */
export async function recordEvents(tx: Prisma.TransactionClient, events: NewEvent[]): Promise<OutboxItem[]> {
  if (events.length === 0) return [];
  // each delivery's queue as the outbox row has it (a broadcast's message's event in the bulk lane)
  return deliveryJobs(await insertEventsWithDeliveries(tx, events));
}
