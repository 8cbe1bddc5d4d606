import type { Deps } from '@tidings/core';
import { measureJobs, queueTelemetry } from '@tidings/runtime';
import { bullPrefix, webhookQueueOf, type JobData, type Lane } from '@tidings/queue';
import { Worker } from 'bullmq';
import { deliverWebhook, type DeliverOptions } from './deliver-webhook.processor.ts';

export type WebhookWorker = { workers: Worker<JobData['webhooks']>[]; close(): Promise<void> };

/**
 * Starts consuming both webhook queues: `webhooks` (the transactional lane, WEBHOOK_WORKER_CONCURRENCY slots) and
 * `webhooks-bulk` (replays, WEBHOOK_WORKER_BULK_CONCURRENCY slots of their own), so a replay never takes the slots
 * of live webhooks. Lock and stalled-check times come from configuration: when a worker dies mid-delivery its job's
 * lock runs out and another (or the restarted) worker takes the job over. Every run is measured in `deps.metrics`.
 * Close it with `await worker.close()` (waits for deliveries in flight).
 * @example const worker = startWebhookWorker(deps); process.once('SIGTERM', () => worker.close());
 */
export function startWebhookWorker(deps: Deps, options: DeliverOptions = {}): WebhookWorker {
  const workers = (['transactional', 'bulk'] as const).map((lane) => laneWorker(deps, options, lane));
  return { workers, close: async () => void (await Promise.all(workers.map((w) => w.close()))) };
}

function laneWorker(deps: Deps, options: DeliverOptions, lane: Lane): Worker<JobData['webhooks']> {
  const { config, logger } = deps;
  const queue = webhookQueueOf(lane);
  const worker = new Worker<JobData['webhooks']>(queue, measureJobs(deps.metrics, deliverWebhook(deps, options)), {
    connection: deps.redis,
    prefix: bullPrefix(config.redisPrefix, queue, deps.redis.isCluster),
    // while tracing, a delivery continues the trace of the status change that caused it
    telemetry: queueTelemetry(),
    concurrency: lane === 'bulk' ? config.webhooks.bulkWorkerConcurrency : config.webhooks.workerConcurrency,
    lockDuration: config.webhooks.lockMs,
    stalledInterval: config.webhooks.stalledIntervalMs,
    // A delivery outlives several crashes rather than being dropped as "stalled too often".
    maxStalledCount: 10,
    removeOnComplete: { age: 24 * 60 * 60, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 60 * 60 },
  });
  worker.on('failed', (job, error) => logger.error({ deliveryId: job?.data.deliveryId, err: error }, 'webhook job failed'));
  worker.on('error', (error) => logger.error({ err: error }, 'webhook worker error'));
  return worker;
}
