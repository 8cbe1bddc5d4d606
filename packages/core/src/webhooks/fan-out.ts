import type { Prisma } from '@tidings/db';

/** One recorded event, and the single endpoint it is meant for when it is not a subscription (webhook.test). */
export type FanOutEvent = { eventId: string; webhookId: string | null };

/**
 * Creates one delivery per (event, enabled endpoint of the event's organization subscribed to its type) in ONE
 * statement, whatever the number of events and endpoints; an event with `webhookId` goes to that endpoint only.
 * Returns the new delivery ids. Runs in the caller's transaction.
 * @example const deliveryIds = await fanOutEvents(tx, [{ eventId: 'evt_...', webhookId: null }]);
 */
export async function fanOutEvents(tx: Prisma.TransactionClient, events: FanOutEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const eventIds = events.map((e) => e.eventId);
  const targets = events.map((e) => e.webhookId);
  // Ids come from Postgres (the statement decides how many rows there are); they are opaque, ordering uses createdAt.
  // Times are UTC like every timestamp Prisma writes (the columns have no time zone; the session's may not be UTC).
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e."orgId", w."id", e."id", e."type", t."at", t."at", t."at"
    FROM (SELECT *, now() AT TIME ZONE 'UTC' AS "at" FROM unnest(${eventIds}::text[], ${targets}::text[]) AS u("eventId", "webhookId")) t
    JOIN "Event" e ON e."id" = t."eventId"
    JOIN "Webhook" w ON w."orgId" = e."orgId" AND w."enabled"
      AND CASE WHEN t."webhookId" IS NULL THEN e."type" = ANY (w."events") ELSE w."id" = t."webhookId" END
    RETURNING "id"`;
  return rows.map((r) => r.id);
}
