import { Prisma } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { deliveryJobs, deliveryLaneOf, eventsCte } from '../events.ts';
import { newId } from '../ids.ts';
import { claimProviderEventSql } from './provider-event-claim.ts';
import { dispatchOutbox } from '../outbox.ts';
import { messageJsonSql } from './message.mapper.ts';
import { EVENT_OF_STATUS } from './message-status.ts';
import { findReportedMessage, type ReportedMessageRef } from './reported-message.ts';

/** What a provider reports about how a delivered message was received. */
export type EngagementReport = ReportedMessageRef & {
  kind: 'opened' | 'clicked' | 'complained' | 'delayed';
  /** The link of a click. */
  link?: string | null;
};

/**
 * THE engagement path: every provider callback (Resend today; any other provider that reports opens, clicks,
 * complaints or delays) and the sandbox call this for such a report. In ONE statement it appends a history entry
 * (`opened`, `clicked` with the link, `complained`, `delayed`; the status stays), sets `openedAt`/`clickedAt` on the
 * first open/click (a click counts as an open too), suppresses the address on a complaint (reason `complained`),
 * and records `message.opened|clicked|complained|delayed` (a click's event data carries `link`) with its webhook
 * deliveries. Only outbound messages are engaged with; a provider's event (`eventId`) only once.
 * @returns whether the message was found (an unknown one is acknowledged and ignored)
 * @example await recordEngagement(deps, { provider: 'resend', providerMessageId: 'e1...', kind: 'clicked', link: 'https://example.com/a' });
 */
export async function recordEngagement(deps: Deps, report: EngagementReport): Promise<{ found: boolean }> {
  const message = await findReportedMessage(deps, report);
  if (!message) return { found: false };
  const at = deps.now().toISOString();
  const link = report.kind === 'clicked' ? (report.link ?? null) : null;
  const sets = [Prisma.sql`"updatedAt" = ${at}::timestamp`];
  if (report.kind === 'opened' || report.kind === 'clicked') sets.push(Prisma.sql`"openedAt" = coalesce("openedAt", ${at}::timestamp)`);
  if (report.kind === 'clicked') sets.push(Prisma.sql`"clickedAt" = coalesce("clickedAt", ${at}::timestamp)`);
  const data = link === null ? messageJsonSql : Prisma.sql`${messageJsonSql} || jsonb_build_object('link', ${link}::text)`;
  const suppress =
    report.kind === 'complained'
      ? Prisma.sql`INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
          SELECT "orgId", "to", "mode", 'complained'::"SuppressionReason", ${at}::timestamp FROM engaged
          ON CONFLICT ("orgId", "recipient", "mode") DO UPDATE SET "reason" = 'complained' WHERE "Suppression"."reason" IN ('unsubscribed', 'manual')`
      : Prisma.sql`SELECT 1`;
  // a provider's event is claimed in the same statement: a replay (or a concurrent twin, once the first commits) engages nothing
  const claimed = report.eventId ? claimProviderEventSql(report.provider, report.eventId) : Prisma.sql`SELECT 1`;
  const [row] = await deps.db.$queryRaw<{ deliveryIds: string[]; deliveriesCreatedAt: Date | null }[]>`
    WITH claimed AS (${claimed}),
    engaged AS (
      UPDATE "Message" SET ${Prisma.join(sets)} WHERE "id" = ${message.id} AND "direction" = 'outbound' AND EXISTS (SELECT 1 FROM claimed) RETURNING *),
    history AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "activity", "link", "createdAt")
      SELECT "id", "status", ${report.kind}::"MessageActivity", ${link}, ${at}::timestamp FROM engaged),
    suppressed AS (${suppress}),
    ${eventsCte(Prisma.sql`SELECT ${newId('evt')}, m."orgId", ${EVENT_OF_STATUS[report.kind]!}, ${data}, NULL::text FROM engaged m`)}
    SELECT ARRAY(SELECT "id" FROM new_deliveries) AS "deliveryIds", (SELECT max("createdAt") FROM new_deliveries) AS "deliveriesCreatedAt" FROM engaged`;
  if (!row) return { found: false };
  await dispatchOutbox(
    deps,
    deliveryJobs(
      row.deliveryIds.map((id) => ({ id, createdAt: row.deliveriesCreatedAt })),
      deliveryLaneOf(message),
    ),
  );
  return { found: true };
}
