import { listMigrations } from '@tidings/db';
import { QUEUE_NAMES, type QueueName } from '@tidings/queue';
import { within } from '@tidings/telemetry';
import type { Deps } from './deps.ts';
import { listAppliedMigrations, pingDatabase } from './install.store.ts';
import { providerPaceStatus, type PaceAccountStatus } from './pace/pace-status.ts';

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
  /** Each paced provider account's rate, use and deferrals (pace-status.ts; null while Redis does not answer). */
  pace: PaceAccountStatus[] | null;
};

/**
 * Whether Postgres and Redis answer, which migrations are pending, how many jobs wait in each queue, which
 * providers are configured and each paced account's rate and use. Each store gets 10 s (the first statement of a new process opens its connection): a store
 * that is down makes its parts null, never a hang.
 * @example const status = await installStatus(deps); if (status.migrations?.pending.length) ...
 */
export async function installStatus(deps: Pick<Deps, 'db' | 'redis' | 'queues' | 'config' | 'rateLimits' | 'providers'>): Promise<InstallStatus> {
  // a refused connection is an answer: the queues' counts and the ping end on it rather than wait out the timeout
  const refused = firstConnectionError(deps.redis);
  const beforeRefused = <T>(work: Promise<T>) => Promise.race([work, refused.error]);
  try {
    const [postgres, redis, applied, counts, known, pace] = await Promise.all([
      within(() => pingDatabase(deps.db), STORE_TIMEOUT_MS),
      within(() => beforeRefused(deps.redis.ping()), STORE_TIMEOUT_MS),
      within(() => listAppliedMigrations(deps.db), STORE_TIMEOUT_MS),
      within(
        () => beforeRefused(Promise.all(QUEUE_NAMES.map((name) => deps.queues[name].getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed')))),
        STORE_TIMEOUT_MS,
      ),
      listMigrations(),
      within(() => beforeRefused(providerPaceStatus(deps)), STORE_TIMEOUT_MS),
    ]);
    return report(deps, { postgres, redis, applied, counts, known, pace });
  } finally {
    refused.stop();
  }
}

/**
 * Rejects on the next connection error `redis` emits (ECONNREFUSED, a DNS failure) until `stop()`: the client itself
 * keeps reconnecting, and its commands keep waiting, for as long as it lives.
 */
function firstConnectionError(redis: Deps['redis']): { error: Promise<never>; stop(): void } {
  let onError = (_error: Error) => {};
  const error = new Promise<never>((_, reject) => {
    onError = reject;
    redis.on('error', onError);
  });
  error.catch(() => {}); // read only through the races above
  return { error, stop: () => redis.off('error', onError) };
}

type Answers = {
  postgres: { ok: boolean };
  redis: { ok: boolean };
  applied: { ok: true; value: string[] } | { ok: false };
  counts: { ok: true; value: Record<string, number>[] } | { ok: false };
  known: string[];
  pace: { ok: true; value: PaceAccountStatus[] } | { ok: false };
};

function report(deps: Pick<Deps, 'config'>, { postgres, redis, applied, counts, known, pace }: Answers): InstallStatus {
  const depth = (count: Record<string, number>): QueueDepth => ({
    // jobs waiting for their organization's turn (lanes take turns) wait too
    waiting: (count.waiting ?? 0) + (count.prioritized ?? 0),
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
    pace: pace.ok ? pace.value : null,
  };
}
