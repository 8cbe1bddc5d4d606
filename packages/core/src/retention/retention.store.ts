import type { Db } from '@tidings/db';
import { idsBefore } from '../ids.ts';

/** Rows retention removes: those of `table` that the SQL condition `where` picks ($1: `cutoff`, then `params`). */
export type RetentionTarget = { table: string; where: string; cutoff: Date; params?: unknown[] };

/** A webhook delivery still pending (a retry ahead, or a redelivery asked for), as an SQL condition: retention keeps it. */
export const PENDING_DELIVERY = `"status" = 'pending'`;

/** The rows of `table` created before `cutoff`, except those matching the SQL condition `keep`. */
export function rowsCreatedBefore(table: string, cutoff: Date, keep?: string): RetentionTarget {
  return { table, where: `"createdAt" < $1::timestamp${keep ? ` AND NOT (${keep})` : ''}`, cutoff };
}

/** The events (webhook payloads) created before `cutoff` that no delivery refers to. */
export function unreferencedEventsBefore(cutoff: Date): RetentionTarget {
  // Event has no index on "createdAt": its ids are ULIDs, so its primary key finds the old ones by range. A
  // delivery still kept (a longer WEBHOOK_ATTEMPT_RETENTION_DAYS, or pending) keeps its event, which it sends.
  const where = `"id" < $2 AND "createdAt" < $1::timestamp AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = "Event"."id")`;
  return { table: 'Event', where, cutoff, params: [idsBefore('evt', cutoff)] };
}

/** The idempotency records expired and unlocked at `now`. */
export function expiredIdempotencyRecords(now: Date): RetentionTarget {
  return { table: 'IdempotencyRecord', where: `"expiresAt" < $1::timestamp AND "lockedUntil" < $1::timestamp`, cutoff: now };
}

// The key a batch of each table is picked and deleted by: a partitioned table's includes "createdAt".
const batchKeys: Record<string, string[]> = { IdempotencyRecord: ['orgId', 'mode', 'key'], Event: ['id'], ProviderEvent: ['provider', 'eventId'] };

/** Deletes up to `batchSize` of the target's rows in one statement; returns how many it deleted. */
export async function deleteRetentionBatch(db: Db, { table, where, cutoff, params = [] }: RetentionTarget, batchSize: number): Promise<number> {
  const key = batchKeys[table] ?? ['id', 'createdAt'];
  const keyList = key.map((k) => `"${k}"`).join(', ');
  // The condition again on the outer rows: a row changed since the batch was picked (an idempotency key taken over)
  // is checked afresh and kept.
  const statement = `
    WITH gone AS (DELETE FROM "${table}" WHERE (${keyList}) IN (SELECT ${keyList} FROM "${table}" WHERE ${where} LIMIT ${batchSize}) AND ${where} RETURNING *)
    SELECT count(*)::int AS "n" FROM gone`;
  // a UTC time without zone, as the columns hold: no session time zone shifts the cutoff
  const [{ n }] = await db.$queryRawUnsafe<[{ n: number }]>(statement, cutoff.toISOString().replace('Z', ''), ...params);
  return n;
}
