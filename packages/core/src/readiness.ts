import type { Deps } from './deps.ts';
import { within } from './within.ts';

const CHECK_TIMEOUT_MS = 2000;

/** The answer of `/readyz`: whether Postgres and Redis answered, each by name. */
export type Readiness = { status: 'ready' | 'not ready'; checks: { postgres: 'ok' | 'unreachable'; redis: 'ok' | 'unreachable' } };

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'unreachable'> {
  return (await within(probe, CHECK_TIMEOUT_MS)).ok ? 'ok' : 'unreachable';
}

/**
 * Whether this process can do its work: Postgres and Redis each answer within 2 s. Every process's `/readyz`.
 * @example const readiness = await checkReadiness(deps); // { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } }
 */
export async function checkReadiness({ db, redis }: Pick<Deps, 'db' | 'redis'>): Promise<Readiness> {
  const [postgres, redisStatus] = await Promise.all([check(() => db.$queryRaw`SELECT 1`), check(() => redis.ping())]);
  return { status: postgres === 'ok' && redisStatus === 'ok' ? 'ready' : 'not ready', checks: { postgres, redis: redisStatus } };
}
