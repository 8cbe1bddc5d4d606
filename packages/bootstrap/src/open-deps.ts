import type { Config } from '@tidings/config';
import {
  createBatchers,
  createKeyChanges,
  createRateLimits,
  createTemplateRenderer,
  type Deps,
  outboxBacklog,
  postgresAnswers,
  providerPaceStatus,
  sendingExtensions,
} from '@tidings/core';
import { closeDb, createDb, createReads } from '@tidings/db';
import { closeQueues, createQueues, createRedis, QUEUE_NAMES } from '@tidings/queue';
import { checkReadiness, createLogger, createMetrics, queueTelemetry, type Logger, type Metrics } from '@tidings/runtime';
import { buildProviders, type Providers } from '@tidings/providers';

/** A process's dependencies as opened here: core's, with the runtime's own logger and metrics (the ops endpoints serve them). */
export type OpenedDeps = Deps & { logger: Logger; metrics: Metrics; close(): Promise<void> };

/**
 * Opens the connections one process needs, builds its providers from `config` (unless `options.providers` is given),
 * and closes them again. `options.genericPlans` for a process whose statements are all fixed shapes (see createDb).
 * `options.runsJobs` for a worker or the command line: its statements get the longer job statement timeout.
 * @example const deps = openDeps(loadConfig(), 'api'); ... await deps.close();
 */
export function openDeps(config: Config, name: string, options: { providers?: Providers; genericPlans?: boolean; runsJobs?: boolean } = {}): OpenedDeps {
  const openDb = (databaseUrl: string) =>
    createDb({
      databaseUrl,
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
      genericPlans: options.genericPlans,
      statementTimeoutMs: options.runsJobs ? config.statementTimeoutMs.jobs : config.statementTimeoutMs.requests,
    });
  const db = openDb(config.databaseUrl);
  const redis = createRedis(config.redisUrl);
  const queues = createQueues(redis, config.redisPrefix, queueTelemetry());
  const logger = createLogger({ level: config.logLevel, name });
  const providers = options.providers ?? buildProviders(config);
  // ioredis reconnects by itself; say so once per failure in the JSON log rather than on the console
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const renderer = createTemplateRenderer(config.templateRender);
  const keyChanges = createKeyChanges(redis, config.redisPrefix, logger);
  for (const queue of Object.values(queues)) queue.on('error', (error: Error) => logger.warn({ err: error, queue: queue.name }, 'queue error'));
  const metrics = createMetrics({
    async queueJobCounts() {
      const counts = await Promise.all(QUEUE_NAMES.map((name) => queues[name].getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized')));
      // a job waiting for its organization's turn (prioritized) waits all the same: `waiting` counts it too
      return Object.fromEntries(QUEUE_NAMES.map((name, i) => [name, { ...counts[i], waiting: (counts[i]!.waiting ?? 0) + (counts[i]!.prioritized ?? 0) }]));
    },
    outboxBacklog: () => outboxBacklog(db),
    circuitStates: () => providers.circuit.states(),
    replicaStates: () => reads.states(),
    // the email accounts and at most PACE_STATUS_MAX_NUMBERS sending numbers: the labels stay bounded
    providerPace: () => providerPaceStatus(base),
  });
  const reads = createReads(db, {
    ...config.databaseReads,
    openDb,
    onRead: (choice) => metrics.databaseReads.inc(choice),
  });
  const base = {
    db,
    reads,
    redis,
    queues,
    config,
    logger,
    providers,
    metrics,
    readiness: () => checkReadiness({ postgres: () => postgresAnswers(db), redis: () => redis.ping() }),
    renderer,
    keyChanges,
    rateLimits: createRateLimits(redis, config.redisRequestTimeoutMs),
    sending: sendingExtensions(),
    now: () => new Date(),
  };
  const batchers = createBatchers(base);
  return {
    ...base,
    batchers,
    async close() {
      await batchers.close();
      await closeQueues(queues).catch(() => {}); // closing is best effort; the connection quits next
      providers.close();
      await Promise.allSettled([reads.close().then(() => closeDb(db)), base.rateLimits.close(), redis.quit(), renderer.close(), keyChanges.close()]);
    },
  };
}
