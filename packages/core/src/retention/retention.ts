import type { Deps } from '../deps.ts';
import { idsBefore } from '../ids.ts';
import { listPartitions, type PartitionedTable } from './partitions.ts';

const DAY_MS = 86_400_000;
/** Rows per delete statement: each is its own short transaction, so no lock is held for long. */
export const RETENTION_BATCH_SIZE = 2000;
/** How long dropping a partition may wait for its locks before it gives up until the next run. */
const DROP_LOCK_TIMEOUT = '1s';

type RetentionDeps = Pick<Deps, 'db' | 'now' | 'logger' | 'metrics'>;
export type RetentionOptions = { messageDays: number; webhookAttemptDays: number; auditDays?: number; batchSize?: number };
/** Per table: rows removed by deleting, partitions dropped whole (with their rows), and the longest a drop held (or
 * waited for) the parent table's lock, ms. */
export type RetentionReport = Record<string, { deleted: number; droppedPartitions: string[]; droppedRows: number; parentLockMs: number }>;

/**
 * Drops the partitions of `table` wholly older than `cutoff`, except one holding a row that matches `keep` (its other
 * rows are deleted in batches instead). The partition is locked against writes (reads go on) while its rows are
 * checked and counted, then the drop takes the parent's lock only for the catalog change; a drop that cannot get its
 * locks within DROP_LOCK_TIMEOUT waits for the next run.
 */
async function dropOldPartitions(deps: RetentionDeps, table: PartitionedTable, cutoff: Date, keep?: string): Promise<{ dropped: string[]; rows: number; parentLockMs: number }> {
  const old = (await listPartitions(deps, table)).filter((p) => !p.isDefault && p.to !== null && p.to <= cutoff);
  const dropped: string[] = [];
  let rows = 0;
  let parentLockMs = 0;
  for (const partition of old) {
    const name = `"${partition.name.replace(/"/g, '""')}"`;
    let dropStarted = 0;
    try {
      const count = await deps.db.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT}'`);
          await tx.$executeRawUnsafe(`LOCK TABLE ${name} IN SHARE MODE`);
          if (keep && (await tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${name} WHERE ${keep} LIMIT 1`)).length > 0) return null;
          const [{ n }] = await tx.$queryRawUnsafe<[{ n: number }]>(`SELECT count(*)::int AS "n" FROM ${name}`);
          dropStarted = performance.now();
          await tx.$executeRawUnsafe(`DROP TABLE ${name}`);
          return n;
        },
        { timeout: 600_000 },
      );
      if (count === null) {
        deps.logger.info({ table, partition: partition.name }, 'retention keeps a partition with rows still in use: deleting the rest');
        continue;
      }
      // from asking for the parent's lock to the commit that releases it
      const lockMs = Math.round(performance.now() - dropStarted);
      parentLockMs = Math.max(parentLockMs, lockMs);
      dropped.push(partition.name);
      rows += count;
      deps.logger.info({ table, partition: partition.name, rows: count, parentLockMs: lockMs }, 'retention dropped a partition');
    } catch (error) {
      deps.logger.warn({ table, partition: partition.name, err: error }, 'retention could not drop a partition: next run');
    }
  }
  return { dropped, rows, parentLockMs };
}

// The key a batch of each table is picked and deleted by: a partitioned table's includes "createdAt".
const batchKeys: Record<string, string[]> = { IdempotencyRecord: ['orgId', 'mode', 'key'], Event: ['id'], ProviderEvent: ['provider', 'eventId'] };

/**
 * How long a provider event's id is remembered (ProviderEvent). Far beyond every provider's retries (Svix's last
 * about a day and a half after the first try) and signature windows (5 minutes for Resend and Telnyx, an hour for SNS).
 */
export const PROVIDER_EVENT_RETENTION_DAYS = 7;

/** Deletes the rows that `where` picks ($1: `cutoff`, then `params`) in batches of `batchSize`, each its own statement. */
async function deleteInBatches(deps: RetentionDeps, table: string, where: string, cutoff: Date, batchSize: number, params: unknown[] = []): Promise<number> {
  const key = batchKeys[table] ?? ['id', 'createdAt'];
  const keyList = key.map((k) => `"${k}"`).join(', ');
  // The condition again on the outer rows: a row changed since the batch was picked (an idempotency key taken over)
  // is checked afresh and kept.
  const statement = `
    WITH gone AS (DELETE FROM "${table}" WHERE (${keyList}) IN (SELECT ${keyList} FROM "${table}" WHERE ${where} LIMIT ${batchSize}) AND ${where} RETURNING *)
    SELECT count(*)::int AS "n" FROM gone`;
  let total = 0;
  for (;;) {
    // a UTC time without zone, as the columns hold: no session time zone shifts the cutoff
    const [{ n }] = await deps.db.$queryRawUnsafe<[{ n: number }]>(statement, cutoff.toISOString().replace('Z', ''), ...params);
    total += n;
    if (n > 0) deps.metrics.retentionRowsRemoved.inc({ table }, n);
    if (n < batchSize) return total;
    deps.logger.debug({ table, deleted: total }, 'retention deleting');
  }
}

/**
 * Removes what is older than its retention: messages and their status events after MESSAGE_RETENTION_DAYS (0 keeps
 * them); webhook deliveries and attempts after WEBHOOK_ATTEMPT_RETENTION_DAYS (0 keeps them), each by its own age,
 * except a delivery still pending (a retry ahead, or a redelivery asked for); events (the webhook payloads) after
 * MESSAGE_RETENTION_DAYS once no delivery refers to them; idempotency records once expired and unlocked; provider
 * event ids after PROVIDER_EVENT_RETENTION_DAYS; audit events after AUDIT_RETENTION_DAYS (0 or unset keeps them). Whole
 * monthly partitions are dropped (a delivery partition only once none of it is pending); the rows of the month that
 * straddles the cutoff (and of the legacy, default and kept partitions, and events) are deleted in small batches.
 * Sends go on meanwhile: nothing holds a lock on a table for longer than one batch or one partition drop.
 * @example await applyRetention(deps, { messageDays: 90, webhookAttemptDays: 30 })
 */
export async function applyRetention(deps: RetentionDeps, options: RetentionOptions): Promise<RetentionReport> {
  const now = deps.now();
  const batch = options.batchSize ?? RETENTION_BATCH_SIZE;
  const report: RetentionReport = {};
  const record = (table: string, deleted: number, droppedPartitions: string[] = [], droppedRows = 0, parentLockMs = 0) => {
    report[table] = { deleted, droppedPartitions, droppedRows, parentLockMs };
    if (droppedRows > 0) deps.metrics.retentionRowsRemoved.inc({ table }, droppedRows);
    if (droppedPartitions.length > 0) deps.metrics.retentionPartitionsDropped.inc({ table }, droppedPartitions.length);
    if (deleted + droppedRows > 0) deps.logger.info({ table, deleted, droppedPartitions, droppedRows }, 'retention removed old rows');
  };
  const removeOld = async (table: PartitionedTable, cutoff: Date, keep?: string) => {
    const { dropped, rows, parentLockMs } = await dropOldPartitions(deps, table, cutoff, keep);
    const where = `"createdAt" < $1::timestamp${keep ? ` AND NOT (${keep})` : ''}`;
    record(table, await deleteInBatches(deps, table, where, cutoff, batch), dropped, rows, parentLockMs);
  };

  const messageCutoff = options.messageDays > 0 ? new Date(now.getTime() - options.messageDays * DAY_MS) : null;
  if (messageCutoff) {
    await removeOld('Message', messageCutoff);
    await removeOld('MessageStatusEvent', messageCutoff);
  }
  if (options.webhookAttemptDays > 0) {
    const cutoff = new Date(now.getTime() - options.webhookAttemptDays * DAY_MS);
    await removeOld('WebhookDelivery', cutoff, `"status" = 'pending'`);
    // by their own age: an attempt outlives its delivery by at most the retry schedule, unreachable meanwhile
    await removeOld('WebhookAttempt', cutoff);
  }
  if (messageCutoff) {
    // Event has no index on "createdAt": its ids are ULIDs, so its primary key finds the old ones by range. A
    // delivery still kept (a longer WEBHOOK_ATTEMPT_RETENTION_DAYS, or pending) keeps its event, which it sends.
    const where = `"id" < $2 AND "createdAt" < $1::timestamp AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = "Event"."id")`;
    record('Event', await deleteInBatches(deps, 'Event', where, messageCutoff, batch, [idsBefore('evt', messageCutoff)]));
  }
  const providerEventCutoff = new Date(now.getTime() - PROVIDER_EVENT_RETENTION_DAYS * DAY_MS);
  record('ProviderEvent', await deleteInBatches(deps, 'ProviderEvent', `"createdAt" < $1::timestamp`, providerEventCutoff, batch));
  if (options.auditDays && options.auditDays > 0) {
    const cutoff = new Date(now.getTime() - options.auditDays * DAY_MS);
    record('AuditEvent', await deleteInBatches(deps, 'AuditEvent', `"createdAt" < $1::timestamp`, cutoff, batch));
  }
  record('IdempotencyRecord', await deleteInBatches(deps, 'IdempotencyRecord', `"expiresAt" < $1::timestamp AND "lockedUntil" < $1::timestamp`, now, batch));
  return report;
}
