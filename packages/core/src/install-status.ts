import { listMigrations } from '@tidings/db';
import { QUEUE_NAMES, type QueueName } from '@tidings/queue';
import { within } from '@tidings/runtime';
import type { Deps } from './deps.ts';
import { listAppliedMigrations, pingDatabase } from './install.store.ts';

/** How long each store may take to answer before it counts as unreachable: a new process connects first. */
const STORE_TIMEOUT_MS = 10_000;

export type QueueDepth = { waiting: number; active: number; delayed: number; failed: number };

/** What `tidings status` reports of the stores an install shares (the apps' readiness is asked of each app). */
export type InstallStatus = {
  postgres: 'ok' | 'unreachable';
  redis: 'ok' | 'unreachable';
  /** Migrations applied and those of this version not yet applied (null while Postgres does not answer). */
  migrations: { applied: number; pending: string[] } | null;
  /** Jobs per queue and state (null while Redis does not answer). */
  queues: Record<QueueName, QueueDepth> | null;
  /** The providers live messages go through, in order (test keys always use the sandbox). */
  providers: { email: string[]; sms: string[] };
};

/**
 * Whether Postgres and Redis answer, which migrations are pending, how many jobs wait in each queue, and which
 * providers are configured. Each store gets 10 s (the first statement of a new process opens its connection): a store
 * that is down makes its parts null, never a hang.
 * @example const status = await installStatus(deps); if (status.migrations?.pending.length) ...
 */
export async function installStatus(deps: Pick<Deps, 'db' | 'redis' | 'queues' | 'config'>): Promise<InstallStatus> {
  const [postgres, redis, applied, counts, known] = await Promise.all([
    within(() => pingDatabase(deps.db), STORE_TIMEOUT_MS),
    within(() => deps.redis.ping(), STORE_TIMEOUT_MS),
    within(() => listAppliedMigrations(deps.db), STORE_TIMEOUT_MS),
    within(() => Promise.all(QUEUE_NAMES.map((name) => deps.queues[name].getJobCounts('waiting', 'active', 'delayed', 'failed'))), STORE_TIMEOUT_MS),
    listMigrations(),
  ]);
  const depth = (count: Record<string, number>): QueueDepth => ({
    waiting: count.waiting ?? 0,
    active: count.active ?? 0,
    delayed: count.delayed ?? 0,
    failed: count.failed ?? 0,
  });
  return {
    postgres: postgres.ok ? 'ok' : 'unreachable',
    redis: redis.ok ? 'ok' : 'unreachable',
    migrations: applied.ok ? { applied: applied.value.length, pending: known.filter((name) => !applied.value.includes(name)) } : null,
    queues: counts.ok ? (Object.fromEntries(QUEUE_NAMES.map((name, i) => [name, depth(counts.value[i]!)])) as Record<QueueName, QueueDepth>) : null,
    providers: { email: [...deps.config.providerLists.email], sms: [...deps.config.providerLists.sms] },
  };
}
