// The webhook-worker process: `tsx apps/webhook-worker/src/worker.ts`. Configured only by the environment.
import { ConfigError, loadConfig } from '@tidings/config';
import { openDeps, requeueOverdueDeliveries, startOpsServer } from '@tidings/core';
import { startWebhookWorker } from './webhook-worker.ts';

async function main() {
  const config = loadConfig();
  const deps = openDeps(config, 'webhook-worker');
  // before taking jobs: a port already in use stops the process here, not mid-delivery
  const ops = await startOpsServer(deps, config.webhooks.workerMetricsPort);
  const worker = startWebhookWorker(deps);
  worker.on('ready', () => deps.logger.info({ concurrency: config.webhooks.workerConcurrency, metricsPort: ops.port }, 'webhook-worker consuming queue webhooks'));
  // Deliveries whose job was lost after the outbox (Redis data loss, a job given up as stalled) get a new one.
  const sweep = setInterval(() => {
    requeueOverdueDeliveries(deps, { overdueMs: config.strandedJobAfterMs })
      .then((count) => count > 0 && deps.logger.warn({ count }, 'requeued overdue webhook deliveries'))
      .catch((error) => deps.logger.error({ err: error }, 'overdue delivery sweep failed'));
  }, config.strandedSweepEveryMs);

  // SIGTERM: take no new jobs, let deliveries in flight finish (each is capped by its timeout), then close.
  const shutdown = async (signal: string) => {
    deps.logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), config.webhooks.timeoutMs + 10_000).unref();
    clearInterval(sweep);
    await worker.close();
    await ops.close();
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
});
