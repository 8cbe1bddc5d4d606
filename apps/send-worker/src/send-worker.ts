import { Worker } from 'bullmq';
import { requeueStrandedMessages, watchForEmptyRedis, type AttachmentFetchOptions, type Deps } from '@tidings/core';
import { bullPrefix, type QueueName } from '@tidings/queue';
import { measureJobs, queueTelemetry } from '@tidings/runtime';
import {
  DELETE_EXPIRED_SESSIONS,
  EXPIRE_OVERDUE_VERIFICATIONS,
  maintenanceProcessor,
  OUTBOX_RELAY,
  RECHECK_PENDING_DOMAINS,
  REMOVE_UNNEEDED_ATTACHMENTS,
  PARTITIONS_AND_RETENTION,
  REQUEUE_STRANDED_MESSAGES,
} from './maintenance.processor.ts';
import { segmentCountProcessor } from './segment-count.processor.ts';
import { sendMessageProcessor } from './send-message.processor.ts';
import { broadcastFanOutProcessor } from './broadcast-fan-out.processor.ts';

export type SendWorker = { workers: Worker[]; close(): Promise<void> };

/**
 * Starts the send-worker's BullMQ workers on `deps`: for each configured channel (SEND_WORKER_QUEUES) one on its
 * transactional queue (SEND_WORKER_CONCURRENCY) and one on its bulk queue (SEND_WORKER_BULK_CONCURRENCY): separate
 * workers, so each lane has its own slots and a broadcast never takes the ones single sends need. One on
 * `broadcasts` (the fan-out) when configured, and one on
 * `maintenance` that runs the outbox relay as a job scheduler every OUTBOX_RELAY_INTERVAL_MS. Messages go out through
 * `deps.providers`. Every provider call and job run is measured in `deps.metrics`.
 * `close()` waits for in-flight jobs (graceful shutdown).
 * @example const worker = await startSendWorker(deps); process.once('SIGTERM', () => worker.close());
 */
export async function startSendWorker(deps: Deps, options: { attachmentFetch?: AttachmentFetchOptions } = {}): Promise<SendWorker> {
  const settings = deps.config.sendWorker;
  const common = {
    connection: deps.redis,
    // while tracing, each run continues the trace of the request that added its job
    telemetry: queueTelemetry(),
    lockDuration: settings.lockDurationMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalledCount,
    // Finished jobs are kept for a day to look at in Bull Board, not forever. A job added again later (the relay)
    // is harmless: the message's status decides, and a sent message is never sent again.
    removeOnComplete: { age: 24 * 60 * 60, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 60 * 60 },
  };
  const sendOne = measureJobs(deps.metrics, sendMessageProcessor(deps, options.attachmentFetch));
  const channels = settings.queues.filter((queue) => queue !== 'broadcasts');
  const prefix = (queue: QueueName) => bullPrefix(deps.config.redisPrefix, queue, deps.redis.isCluster);
  const workers: Worker[] = channels.flatMap((channel) => [
    new Worker(channel, sendOne, { ...common, prefix: prefix(channel), concurrency: settings.concurrency }),
    new Worker(`${channel}-bulk`, sendOne, { ...common, prefix: prefix(`${channel}-bulk`), concurrency: settings.bulkConcurrency }),
  ]);
  if (settings.queues.includes('broadcasts')) {
    const fanOut = measureJobs(deps.metrics, broadcastFanOutProcessor(deps));
    workers.push(new Worker('broadcasts', fanOut, { ...common, prefix: prefix('broadcasts'), concurrency: deps.config.broadcasts.workerConcurrency }));
  }
  workers.push(new Worker('maintenance', measureJobs(deps.metrics, maintenanceProcessor(deps)), { ...common, prefix: prefix('maintenance'), concurrency: 5 }));
  // two counts at a time per worker: one organization's expensive segments wait for each other, not for anyone's sends
  workers.push(new Worker('segment-counts', measureJobs(deps.metrics, segmentCountProcessor(deps)), { ...common, prefix: prefix('segment-counts'), concurrency: 2 }));
  for (const worker of workers) {
    worker.on('error', (error) => deps.logger.error({ err: error, queue: worker.name }, 'worker error'));
    // a job given up on (permanent provider error, or stalled too often) should be seen in the log
    worker.on('failed', (job, error) => deps.logger.warn({ err: error, queue: worker.name, jobId: job?.id }, 'job failed'));
  }
  const scheduleMaintenance = () =>
    Promise.all([
      deps.queues.maintenance.upsertJobScheduler(OUTBOX_RELAY, { every: settings.outboxRelayIntervalMs }, { name: OUTBOX_RELAY, data: {} }),
      // pending domains are re-checked every 5 minutes; SKIP LOCKED in the check keeps replicas from doubling the work
      deps.queues.maintenance.upsertJobScheduler(RECHECK_PENDING_DOMAINS, { every: 5 * 60_000 }, { name: RECHECK_PENDING_DOMAINS, data: {} }),
      deps.queues.maintenance.upsertJobScheduler(REQUEUE_STRANDED_MESSAGES, { every: deps.config.strandedSweepEveryMs }, { name: REQUEUE_STRANDED_MESSAGES, data: {} }),
      deps.queues.maintenance.upsertJobScheduler(EXPIRE_OVERDUE_VERIFICATIONS, { every: 60_000 }, { name: EXPIRE_OVERDUE_VERIFICATIONS, data: {} }),
      deps.queues.maintenance.upsertJobScheduler(DELETE_EXPIRED_SESSIONS, { every: 60 * 60_000 }, { name: DELETE_EXPIRED_SESSIONS, data: {} }),
      deps.queues.maintenance.upsertJobScheduler(REMOVE_UNNEEDED_ATTACHMENTS, { every: 60 * 60_000 }, { name: REMOVE_UNNEEDED_ATTACHMENTS, data: {} }),
      deps.queues.maintenance.upsertJobScheduler(PARTITIONS_AND_RETENTION, { every: 60 * 60_000 }, { name: PARTITIONS_AND_RETENTION, data: {} }),
    ]);
  await scheduleMaintenance();
  // The schedulers live in Redis: after a Redis that restarted without its data, set them up again (upserts are
  // idempotent), or nothing would relay the outbox or sweep for stranded messages until a worker restarts.
  const onReconnect = () => void scheduleMaintenance().catch((error) => deps.logger.warn({ err: error }, 'could not set up the maintenance schedulers again'));
  deps.redis.on('ready', onReconnect);
  // After Redis restarted empty the queued messages' jobs are gone: sweep once the sends in flight then are over
  const afterEmptyMs = Math.min(deps.config.strandedJobAfterMs, 2 * settings.providerTimeoutMs);
  const emptyRedis = watchForEmptyRedis(deps, 'send-worker', afterEmptyMs, () => requeueStrandedMessages(deps, { overdueMs: afterEmptyMs }));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    workers,
    async close() {
      emptyRedis.close();
      deps.redis.off('ready', onReconnect);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
