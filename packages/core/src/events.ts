import type { Prisma } from '@tidings/db';
import { newId } from './ids.ts';
import type { OutboxItem } from './outbox.ts';

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

export type NewEvent = { orgId: string; type: EventType; data: Prisma.InputJsonValue };

/**
 * Records events in the caller's transaction, set-based (one statement for any number of events). This is the one
 * place every change reports to; webhook fan-out hangs off it. Returns the jobs to dispatch after commit.
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
  return [];
}
