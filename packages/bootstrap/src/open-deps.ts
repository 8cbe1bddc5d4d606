import type { Config } from '@tidings/config';
import { createBatchers, createKeyChanges, createRateLimits, createTemplateRenderer, type Deps } from '@tidings/core';
import { closeDb, createDb } from '@tidings/db';
import { closeQueues, createQueues, createRedis, QUEUE_NAMES } from '@tidings/queue';
import { checkReadiness, createLogger, createMetrics, queueTelemetry } from '@tidings/runtime';
import { buildProviders, type Providers } from '@tidings/providers';

/**
 * Opens the connections one process needs, builds its providers from `config` (unless `options.providers` is given),
 * and closes them again. `options.genericPlans` for a process whose statements are all fixed shapes (see createDb).
 * `options.runsJobs` for a worker or the command line: its statements get the longer job statement timeout.
 * @example const deps = openDeps(loadConfig(), 'api'); ... await deps.close();
 */
export function openDeps(config: Config, name: string, options: { providers?: Providers; genericPlans?: boolean; runsJobs?: boolean } = {}): Deps & { close(): Promise<void> } {
  const db = createDb({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
    genericPlans: options.genericPlans,
    statementTimeoutMs: options.runsJobs ? config.statementTimeoutMs.jobs : config.statementTimeoutMs.requests,
  });
  const redis = createRedis(config.redisUrl);
  const queues = createQueues(redis, config.redisPrefix, queueTelemetry());
  const logger = createLogger({ level: config.logLevel, name });
  const providers = options.providers ?? buildProviders(config);
  // ioredis reconnects by itself; say so once per failure in the JSON log rather than on the console
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const renderer = createTemplateRenderer(config.templateRender);
  const keyChanges = createKeyChanges(redis, config.redisPrefix, logger);
  for (const queue of Object.values(queues)) queue.on('error', (error: Error) => logger.warn({ err: error, queue: queue.name }, 'queue error'));
  const base = {
    db,
    redis,
    queues,
    config,
    logger,
    providers,
    metrics: createMetrics({
      async queueJobCounts() {
        const counts = await Promise.all(QUEUE_NAMES.map((name) => queues[name].getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized')));
        return Object.fromEntries(QUEUE_NAMES.map((name, i) => [name, counts[i]]));
      },
      outboxBacklog: () => db.outboxEntry.count(),
      circuitStates: () => providers.circuit.states(),
    }),
    readiness: () => checkReadiness({ postgres: () => db.$queryRaw`SELECT 1`, redis: () => redis.ping() }),
    renderer,
    keyChanges,
    rateLimits: createRateLimits(redis),
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
      await Promise.allSettled([closeDb(db), base.rateLimits.close(), redis.quit(), renderer.close(), keyChanges.close()]);
    },
  };
}
