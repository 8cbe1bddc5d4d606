// What a process's /readyz and /metrics ask of Postgres, from core's stores like every other statement (the
// bootstrap hands them to the runtime's readiness check and gauges).
import type { Db } from '@tidings/db';
import { pingDatabase } from './install.store.ts';
import { countOutboxRows } from './outbox.store.ts';

/**
 * Whether Postgres answers (its probe in `/readyz`); rejects when it does not.
 * @example await checkReadiness({ postgres: () => postgresAnswers(db), redis: () => redis.ping() });
 */
export function postgresAnswers(db: Db): Promise<unknown> {
  return pingDatabase(db);
}

/**
 * Outbox rows not yet moved to Redis, for the backlog gauge.
 * @example createMetrics({ outboxBacklog: () => outboxBacklog(db), ... });
 */
export function outboxBacklog(db: Db): Promise<number> {
  return countOutboxRows(db);
}
