// The webhook-worker process: `node apps/webhook-worker/dist/worker.js` (built) or `tsx apps/webhook-worker/src/worker.ts`.
import './tracing.ts'; // first: see tracing.ts
import { openDeps } from '@tidings/bootstrap';
import { requeueOverdueDeliveries, watchForEmptyRedis } from '@tidings/core';
import { runProcess } from '@tidings/runtime';
import { startWebhookWorker } from './webhook-worker.ts';

runProcess('webhook-worker', {
  open: (config) => openDeps(config, 'webhook-worker', { runsJobs: true }),
  opsPort: (config) => config.webhooks.workerMetricsPort,
  // each delivery in flight is capped by its timeout
  stopWithinMs: (config) => config.webhooks.timeoutMs + 10_000,
  async start(deps) {
    const { config, logger } = deps;
    const worker = startWebhookWorker(deps);
    logger.info(
      { concurrency: config.webhooks.workerConcurrency, bulkConcurrency: config.webhooks.bulkWorkerConcurrency },
      'webhook-worker consuming queues webhooks and webhooks-bulk',
    );
    // Deliveries whose job was lost after the outbox (Redis data loss, a job given up as stalled) get a new one.
    const requeue = (overdueMs: number) =>
      requeueOverdueDeliveries(deps, { overdueMs })
        .then((count) => count > 0 && logger.warn({ count }, 'requeued overdue webhook deliveries'))
        .catch((error) => logger.error({ err: error }, 'overdue delivery sweep failed'));
    const sweep = setInterval(() => void requeue(config.strandedJobAfterMs), config.strandedSweepEveryMs);
    // after Redis restarted empty, once the deliveries in flight then are over
    const afterEmptyMs = Math.min(config.strandedJobAfterMs, 2 * config.webhooks.timeoutMs);
    const emptyRedis = watchForEmptyRedis(deps, 'webhook-worker', afterEmptyMs, () => requeue(afterEmptyMs));
    return {
      async close() {
        emptyRedis.close();
        clearInterval(sweep);
        await worker.close();
      },
    };
  },
});
