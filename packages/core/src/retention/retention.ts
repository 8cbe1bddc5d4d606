import type { Deps } from '../deps.ts';
import { countPartitionRows, dropPartition, lockPartitionForDrop, partitionHasRowWhere } from './partition.store.ts';
import { listPartitions, type PartitionedTable } from './partitions.ts';
import { deleteRetentionBatch, expiredIdempotencyRecords, PENDING_DELIVERY, type RetentionTarget, rowsCreatedBefore, unreferencedEventsBefore } from './retention.store.ts';

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
    let dropStarted = 0;
    try {
      const count = await deps.db.$transaction(
        async (tx) => {
          await lockPartitionForDrop(tx, partition.name, DROP_LOCK_TIMEOUT);
          if (keep && (await partitionHasRowWhere(tx, partition.name, keep))) return null;
          const n = await countPartitionRows(tx, partition.name);
          dropStarted = performance.now();
          await dropPartition(tx, partition.name);
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

/**
 * How long a provider event's id is remembered (ProviderEvent). Far beyond every provider's retries (Svix's last
 * about a day and a half after the first try) and signature windows (5 minutes for Resend and Telnyx, an hour for SNS).
 */
export const PROVIDER_EVENT_RETENTION_DAYS = 7;

/** Deletes the target's rows in batches of `batchSize`, each its own statement. */
async function deleteInBatches(deps: RetentionDeps, target: RetentionTarget, batchSize: number): Promise<number> {
  const { table } = target;
  let total = 0;
  for (;;) {
    const n = await deleteRetentionBatch(deps.db, target, batchSize);
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
    record(table, await deleteInBatches(deps, rowsCreatedBefore(table, cutoff, keep), batch), dropped, rows, parentLockMs);
  };

  const messageCutoff = options.messageDays > 0 ? new Date(now.getTime() - options.messageDays * DAY_MS) : null;
  if (messageCutoff) {
    await removeOld('Message', messageCutoff);
    await removeOld('MessageStatusEvent', messageCutoff);
  }
  if (options.webhookAttemptDays > 0) {
    const cutoff = new Date(now.getTime() - options.webhookAttemptDays * DAY_MS);
    await removeOld('WebhookDelivery', cutoff, PENDING_DELIVERY);
    // by their own age: an attempt outlives its delivery by at most the retry schedule, unreachable meanwhile
    await removeOld('WebhookAttempt', cutoff);
  }
  if (messageCutoff) {
    record('Event', await deleteInBatches(deps, unreferencedEventsBefore(messageCutoff), batch));
  }
  const providerEventCutoff = new Date(now.getTime() - PROVIDER_EVENT_RETENTION_DAYS * DAY_MS);
  record('ProviderEvent', await deleteInBatches(deps, rowsCreatedBefore('ProviderEvent', providerEventCutoff), batch));
  if (options.auditDays && options.auditDays > 0) {
    const cutoff = new Date(now.getTime() - options.auditDays * DAY_MS);
    record('AuditEvent', await deleteInBatches(deps, rowsCreatedBefore('AuditEvent', cutoff), batch));
  }
  record('IdempotencyRecord', await deleteInBatches(deps, expiredIdempotencyRecords(now), batch));
  return report;
}
