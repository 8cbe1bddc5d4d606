// The webhook-worker process: `tsx apps/webhook-worker/src/worker.ts`, configured only by the environment.
import { requeueOverdueDeliveries, runWorkerProcess } from '@tidings/core';
import { startWebhookWorker } from './webhook-worker.ts';

runWorkerProcess('webhook-worker', {
  metricsPort: (config) => config.webhooks.workerMetricsPort,
  // each delivery in flight is capped by its timeout
  stopWithinMs: (config) => config.webhooks.timeoutMs + 10_000,
  async start(deps) {
    const { config, logger } = deps;
    const worker = startWebhookWorker(deps);
    worker.on('ready', () => logger.info({ concurrency: config.webhooks.workerConcurrency }, 'webhook-worker consuming queue webhooks'));
    // Deliveries whose job was lost after the outbox (Redis data loss, a job given up as stalled) get a new one.
    const sweep = setInterval(() => {
      requeueOverdueDeliveries(deps, { overdueMs: config.strandedJobAfterMs })
        .then((count) => count > 0 && logger.warn({ count }, 'requeued overdue webhook deliveries'))
        .catch((error) => logger.error({ err: error }, 'overdue delivery sweep failed'));
    }, config.strandedSweepEveryMs);
    return {
      async close() {
        clearInterval(sweep);
        await worker.close();
      },
    };
  },
});
