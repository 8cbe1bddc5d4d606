import { ConfigError, loadConfig, type Config } from '@tidings/config';
import type { Deps } from './deps.ts';
import { openDeps } from './open-deps.ts';
import { startOpsServer } from './ops-server.ts';

/** What a worker process runs: `close()` stops taking jobs and waits for the ones in flight. */
export type RunningWorker = { close(): Promise<void> };

/**
 * A worker process's life, configured only by the environment: the ops server (/metrics, /healthz, /readyz) first,
 * so a port already in use stops the process before it takes a job; then `start`; on SIGTERM or SIGINT, stop taking
 * jobs and let those in flight finish (a job still running when the process is killed is taken over as stalled),
 * exiting anyway after `stopWithinMs`. A bad setting exits 1 naming it.
 * @example runWorkerProcess('send-worker', { metricsPort: (c) => c.sendWorker.metricsPort, stopWithinMs: () => 30_000, start: startSendWorker });
 */
export function runWorkerProcess(
  name: string,
  options: { metricsPort: (config: Config) => number; stopWithinMs: (config: Config) => number; start: (deps: Deps) => Promise<RunningWorker> },
): void {
  const main = async () => {
    const config = loadConfig();
    const deps = openDeps(config, name);
    const ops = await startOpsServer(deps, options.metricsPort(config));
    const worker = await options.start(deps);
    deps.logger.info({ metricsPort: ops.port }, `${name} started`);
    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      deps.logger.info({ signal }, 'shutting down');
      setTimeout(() => process.exit(1), options.stopWithinMs(config)).unref();
      await worker.close();
      await ops.close();
      await deps.close();
      process.exit(0);
    };
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  };
  main().catch((error) => {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}
