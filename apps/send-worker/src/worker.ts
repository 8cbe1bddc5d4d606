// The send-worker process: `node`/`tsx apps/send-worker/src/worker.ts`, configured only by the environment.
import { ConfigError, loadConfig } from '@tidings/config';
import { openDeps, startOpsServer } from '@tidings/core';
import { startSendWorker } from './send-worker.ts';

async function main() {
  const config = loadConfig();
  const deps = openDeps(config, 'send-worker');
  // before taking jobs: a port already in use stops the process here, not mid-job
  const ops = await startOpsServer(deps, config.sendWorker.metricsPort);
  const worker = await startSendWorker(deps);
  deps.logger.info({ queues: config.sendWorker.queues, concurrency: config.sendWorker.concurrency, metricsPort: ops.port }, 'send-worker started');

  // SIGTERM: stop taking jobs and let the running ones finish (BullMQ's close waits for them); a job that still
  // runs when we are killed is picked up again as stalled, and its message is never sent twice by our side.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 30_000).unref();
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
