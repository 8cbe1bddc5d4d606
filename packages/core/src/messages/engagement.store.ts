import { type Db, Prisma, queryRows } from '@tidings/db';
import { eventsCte } from '../event.store.ts';
import type { EventType } from '../events.ts';
import { messageJsonSql } from './message-json.store.ts';
import { claimProviderEventSql } from './message.store.ts';

/** A click on the same link of the same message within this window of the last one recorded is the same click
 * (the provider's report of a click that went through our redirect too, a double click, a mail scanner's repeat). */
const SAME_CLICK_WINDOW_MINUTES = 60;

/** One engagement with one message, as the statement records it. */
export type MessageEngagement = {
  messageId: string;
  kind: 'opened' | 'clicked' | 'complained' | 'delayed';
  link: string | null;
  /** A provider's event id, claimed in the same statement. */
  claim?: { provider: string; eventId: string };
  /** A `clicked` entry's user agent (Tidings' own tracking), kept in the event's data. */
  userAgent?: string | null;
  /** When, as an ISO time (UTC). */
  at: string;
  /** The `message.*` event it records. */
  event: { id: string; type: EventType };
};

/**
 * Records the engagement in ONE statement (see recordEngagement): the history entry, `openedAt`/`clickedAt`, the
 * suppression on a complaint, the provider event's claim and the `message.*` event with its webhook deliveries.
 * @returns the deliveries to dispatch and the message's broadcast, or undefined when nothing was recorded (an unknown or
 * inbound message, a replayed event, a repeat)
 */
export async function engageMessage(
  db: Db,
  engagement: MessageEngagement,
): Promise<{ deliveryIds: string[]; deliveriesCreatedAt: Date | null; broadcastId: string | null; orgId: string } | undefined> {
  const { kind, link, at, event } = engagement;
  const sets = [Prisma.sql`"updatedAt" = ${at}::timestamp`];
  if (kind === 'opened' || kind === 'clicked') sets.push(Prisma.sql`"openedAt" = coalesce("openedAt", ${at}::timestamp)`);
  if (kind === 'clicked') sets.push(Prisma.sql`"clickedAt" = coalesce("clickedAt", ${at}::timestamp)`);
  const extra: Prisma.Sql[] = [];
  if (link !== null) extra.push(Prisma.sql`'link', ${link}::text`);
  if (engagement.userAgent) extra.push(Prisma.sql`'userAgent', ${engagement.userAgent}::text`);
  const data = extra.length === 0 ? messageJsonSql : Prisma.sql`${messageJsonSql} || jsonb_build_object(${Prisma.join(extra)})`;
  const once =
    kind === 'opened'
      ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "MessageStatusEvent" e WHERE e."messageId" = ${engagement.messageId} AND e."activity" = 'opened')`
      : kind === 'clicked' && link !== null
        ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "MessageStatusEvent" e WHERE e."messageId" = ${engagement.messageId} AND e."activity" = 'clicked'
            AND e."link" = ${link} AND e."createdAt" > ${at}::timestamp - make_interval(mins => ${SAME_CLICK_WINDOW_MINUTES}))`
        : Prisma.empty;
  const suppress =
    kind === 'complained'
      ? Prisma.sql`INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
          SELECT "orgId", "to", "mode", 'complained'::"SuppressionReason", ${at}::timestamp FROM engaged
          ON CONFLICT ("orgId", "recipient", "mode") DO UPDATE SET "reason" = 'complained' WHERE "Suppression"."reason" IN ('unsubscribed', 'manual')`
      : Prisma.sql`SELECT 1`;
  // a provider's event is claimed in the same statement: a replay (or a concurrent twin, once the first commits) engages nothing
  const claimed = engagement.claim ? claimProviderEventSql(engagement.claim.provider, engagement.claim.eventId) : Prisma.sql`SELECT 1`;
  // through pg, prepared by name per connection (queryRows): a click or an open is one statement, and Prisma's raw-query
  // plumbing cost more than its round trip
  const [row] = await queryRows<{ deliveryIds: string[]; deliveriesCreatedAt: Date | null; broadcastId: string | null; orgId: string }>(
    db,
    Prisma.sql`
    WITH claimed AS (${claimed}),
    engaged AS (
      UPDATE "Message" SET ${Prisma.join(sets)}
      WHERE "id" = ${engagement.messageId} AND "direction" = 'outbound' AND EXISTS (SELECT 1 FROM claimed) ${once} RETURNING *),
    history AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "activity", "link", "createdAt")
      SELECT "id", "status", ${kind}::"MessageActivity", ${link}, ${at}::timestamp FROM engaged),
    suppressed AS (${suppress}),
    ${eventsCte(Prisma.sql`SELECT ${event.id}, m."orgId", ${event.type}, ${data}, NULL::text FROM engaged m`)}
    SELECT ARRAY(SELECT "id" FROM new_deliveries) AS "deliveryIds", (SELECT max("createdAt") FROM new_deliveries) AS "deliveriesCreatedAt", "broadcastId", "orgId" FROM engaged`,
  );
  return row;
}
