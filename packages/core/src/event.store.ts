import { type Db, type Event as EventRow, Prisma } from '@tidings/db';
import type { WebhookQueue } from '@tidings/queue';
import type { EventType } from '@tidings/contracts';
import { newId } from './ids.ts';

export type NewEvent = {
  orgId: string;
  type: EventType;
  /** The resource as the API returns it. */
  data: Prisma.InputJsonValue;
  /** Deliver to this endpoint only, subscribed or not (webhook.test); otherwise to every subscribed endpoint. */
  webhookId?: string;
};

/** The rows `eventsCte` records, from values in hand: one array parameter per column (Prisma's createMany binds
 * every value separately and was several times slower in bulk). */
export function eventValues(events: NewEvent[]): Prisma.Sql {
  return Prisma.sql`SELECT * FROM unnest(${events.map(() => newId('evt'))}::text[], ${events.map((e) => e.orgId)}::text[],
    ${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.data))}::jsonb[], ${events.map((e) => e.webhookId ?? null)}::text[])`;
}

/** A delivery's mode: that of the message or broadcast its event carries (`data.mode`), null for other events. */
const deliveryModeSql = Prisma.raw(`CASE WHEN e."type" LIKE 'message.%' OR e."type" LIKE 'broadcast.%' THEN (e."data"->>'mode')::"ApiKeyMode" END`);

/**
 * The queue of an event's deliveries: a broadcast's message's events (its `message.sent` to every recipient, ...) go
 * in the bulk lane, like the message itself; every other event in the transactional one. As `deliveryLaneOf`.
 */
const deliveryQueueSql = Prisma.raw(`CASE WHEN e."type" LIKE 'message.%' AND e."data"->>'broadcastId' IS NOT NULL THEN 'webhooks-bulk' ELSE 'webhooks' END`);

/**
 * The common table expressions that record events and fan them out to webhooks, set-based, for any number of events
 * and endpoints. `source` is a query yielding (id, orgId, type, data, webhookId): `eventValues(events)`, or rows of an
 * earlier CTE of the same statement. `recorded_events` inserts the events, `new_deliveries` creates one delivery per
 * (event, enabled endpoint of its organization subscribed to its type and, for a message's or broadcast's event, of
 * its mode) - or only the named endpoint for an event with `webhookId` - and `delivery_outbox` writes their outbox rows. A statement that starts
 * `WITH ${eventsCte(source)}` can go on with its own CTEs and ends with `SELECT "id" FROM new_deliveries`, so a
 * change, its events and their deliveries are one statement: atomic without an interactive transaction holding a
 * pooled connection across round trips.
 * Times are UTC like every timestamp Prisma writes (the columns have no time zone; the session's may not be UTC).
 */
export function eventsCte(source: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    new_events AS (
      SELECT *, now() AT TIME ZONE 'UTC' AS "at" FROM (${source}) AS u("id", "orgId", "type", "data", "webhookId")),
    recorded_events AS (
      INSERT INTO "Event" ("id", "orgId", "type", "data", "createdAt")
      SELECT "id", "orgId", "type", "data", "at" FROM new_events),
    -- a delivery's "createdAt" is its event's: the unique ("eventId", "webhookId", "createdAt") of the partitioned
    -- table is then one delivery per event and endpoint
    new_deliveries AS (
      INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "mode", "nextAttemptAt", "createdAt", "updatedAt")
      SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e."orgId", w."id", e."id", e."type", ${deliveryModeSql}, e."at", e."at", e."at"
      FROM new_events e
      JOIN "Webhook" w ON w."orgId" = e."orgId" AND w."enabled"
        AND CASE WHEN e."webhookId" IS NULL THEN e."type" = ANY (w."events") ELSE w."id" = e."webhookId" END
        -- a message's or broadcast's event goes only to endpoints of its mode
        AND w."mode" = coalesce(${deliveryModeSql}, w."mode")
      RETURNING "id", "orgId", "eventId", "createdAt"),
    delivery_outbox AS (
      INSERT INTO "OutboxEntry" ("queue", "jobId", "createdAt")
      SELECT ${deliveryQueueSql}, d."id", now() AT TIME ZONE 'UTC' FROM new_deliveries d JOIN new_events e ON e."id" = d."eventId")`;
}

/**
 * Records the events and their webhook deliveries with the deliveries' outbox rows, in ONE statement (`eventsCte`).
 * Returns the deliveries, each with its queue as the outbox row has it (a broadcast's message's event in the bulk lane).
 */
export async function insertEventsWithDeliveries(tx: Prisma.TransactionClient, events: NewEvent[]): Promise<{ id: string; orgId: string; createdAt: Date; queue: WebhookQueue }[]> {
  return tx.$queryRaw<{ id: string; orgId: string; createdAt: Date; queue: WebhookQueue }[]>`
      WITH ${eventsCte(eventValues(events))}
      SELECT d."id", d."orgId", d."createdAt", ${deliveryQueueSql} AS "queue" FROM new_deliveries d JOIN new_events e ON e."id" = d."eventId"`;
}

/** One event of the organization, or null. */
export async function findOrgEvent(db: Db, orgId: string, id: string): Promise<EventRow | null> {
  return db.event.findFirst({ where: { id, orgId } });
}
