import type { Prisma } from '@tidings/db';
import { newId } from './ids.ts';
import { writeOutbox, type OutboxItem } from './outbox.ts';
import { fanOutEvents } from './webhooks/fan-out.ts';

/** The event types of API.md. */
export type EventType =
  | 'message.queued'
  | 'message.sent'
  | 'message.delivered'
  | 'message.failed'
  | 'message.bounced'
  | 'message.undelivered'
  | 'message.canceled'
  | 'contact.created'
  | 'contact.updated'
  | 'contact.deleted'
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
 * Records events in the caller's transaction and fans them out to webhooks, set-based: one statement inserts the
 * events, one creates a delivery per enabled, subscribed endpoint of the event's organization, one writes their
 * outbox rows (only when there are deliveries) - three round trips for any number of events and endpoints. This is
 * the one place every change reports to. Returns the delivery jobs (queue `webhooks`, jobId = delivery id) to
 * dispatch after commit; the outbox relay enqueues them if that dispatch never happens.
 * @example
 * const outbox = await db.$transaction(async (tx) => { ...change...; return recordEvents(tx, [{ orgId, type: 'contact.created', data: contact }]); });
 * await dispatchOutbox(deps, outbox);
 */
export async function recordEvents(tx: Prisma.TransactionClient, events: NewEvent[]): Promise<OutboxItem[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({ id: newId('evt'), orgId: e.orgId, type: e.type, data: e.data }));
  // One statement with one array parameter per column: Prisma's createMany binds every value separately and took
  // several times as long for a bulk of 1,000 events. UTC, as Prisma stores times, whatever the session time zone.
  await tx.$executeRaw`
    INSERT INTO "Event" ("id", "orgId", "type", "data", "createdAt")
    SELECT *, now() AT TIME ZONE 'UTC' FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.orgId)}::text[],
                         ${rows.map((r) => r.type)}::text[], ${rows.map((r) => JSON.stringify(r.data))}::jsonb[])`;
  const deliveryIds = await fanOutEvents(
    tx,
    rows.map((row, i) => ({ eventId: row.id, webhookId: events[i]!.webhookId ?? null })),
  );
  const outbox: OutboxItem[] = deliveryIds.map((jobId) => ({ queue: 'webhooks', jobId }));
  await writeOutbox(tx, outbox);
  return outbox;
}
