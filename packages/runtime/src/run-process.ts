import { ConfigError, loadConfig, type Config } from '@tidings/config';
import type { Logger } from './logger.ts';
import { startOpsServer, type OpsSources } from './ops.ts';
import { stopTracing } from './tracing.ts';

/** What a process runs once started (an HTTP server, BullMQ workers): `close()` stops taking work and waits for the work in flight. */
export type Stoppable = { close(): Promise<void> /** An HTTP app's port, logged once listening. */; port?: number };

/** The connections a process opens (the bootstrap's `openDeps`): a logger, the ops sources, and how to close them all. */
export type ProcessDeps = OpsSources & { logger: Logger; close(): Promise<void> };

/** How `runProcess` runs one app. */
export type ProcessOptions<D extends ProcessDeps> = {
  /** Opens the connections from the configuration (`(config) => openDeps(config, 'api')`). */
  open(config: Config): D;
  /** Starts the work; awaited before the process counts as started. */
  start(deps: D): Promise<Stoppable>;
  /** A separate port for /healthz, /readyz and /metrics (the API, the workers), apart from any public port. */
  opsPort?(config: Config): number;
  /** After SIGTERM, how long the work in flight may take before the process exits anyway (code 1). */
  stopWithinMs(config: Config): number;
};

/**
 * The one-line reason a process could not start: a bad setting names itself, a taken port says which; anything else
 * keeps its stack (a bug, not an operator's mistake).
 * @example startupFailure('api', error) // 'api: port 3000 is already in use (another process listens there)'
 */
export function startupFailure(name: string, error: unknown): string {
  if (error instanceof ConfigError) return `${name}: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const port = (error as { port?: number } | undefined)?.port;
  if (code === 'EADDRINUSE') return `${name}: port ${port} is already in use (another process listens there)`;
  if (code === 'EACCES') return `${name}: not allowed to listen on port ${port}`;
  return `${name}: could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/**
 * Every app's process life, configured only by the environment: read the configuration, open the connections, the
 * ops server first when the app has one (so a port already in use stops the process before it takes a job), then
 * `start`. On SIGTERM or SIGINT: stop taking work, let the work in flight finish (HTTP requests answered, jobs
 * completed), close the connections and exit 0; exit 1 anyway after `stopWithinMs`. A failure to start exits 1 with
 * one line on stderr.
 * @example runProcess('send-worker', { open: (config) => openDeps(config, 'send-worker'), opsPort: (c) => c.sendWorker.metricsPort, stopWithinMs: () => 30_000, start: startSendWorker });
 */
export function runProcess<D extends ProcessDeps>(name: string, options: ProcessOptions<D>): void {
  let deps: D | undefined;
  // The signal handlers come first: a SIGTERM while the app is still starting (its ops port may already answer)
  // waits for the start to end, then drains like any other, instead of killing the process by the default action.
  let stopSignal: string | undefined;
  let stopWhenStarted: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => {
    if (stopSignal) return;
    stopSignal = signal;
    stopWhenStarted?.(signal);
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  const main = async () => {
    const config = loadConfig();
    deps = options.open(config);
    const opened = deps;
    const ops = options.opsPort ? await startOpsServer(opened, options.opsPort(config), config.opsHost) : undefined;
    const work = await options.start(opened);
    const opsAt = ops ? `ops on http://${config.opsHost}:${ops.port}` : undefined;
    const where = work.port === undefined ? opsAt : [`listening on http://localhost:${work.port}`, opsAt].filter(Boolean).join(', ');
    opened.logger.info({ port: work.port, opsPort: ops?.port }, `${name} started, ${where}`);
    stopWhenStarted = (signal: string) =>
      void (async () => {
        opened.logger.info({ signal }, `${name} shutting down: finishing the work in flight`);
        setTimeout(() => process.exit(1), options.stopWithinMs(config)).unref();
        await work.close();
        await ops?.close();
        await opened.close();
        await stopTracing(); // the last spans, before the exit drops them
        opened.logger.info(`${name} stopped`);
        process.exit(0);
      })();
    if (stopSignal) stopWhenStarted(stopSignal);
  };
  main().catch(async (error: unknown) => {
    console.error(startupFailure(name, error));
    // best effort: the connections may be half open; the exit follows either way
    await deps?.close().catch(() => {});
    process.exit(1);
  });
}
