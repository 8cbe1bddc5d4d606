import { within } from '@tidings/telemetry';

const CHECK_TIMEOUT_MS = 2000;

/** The answer of `/readyz`: whether each store the process needs answered, by name. */
export type Readiness = { status: 'ready' | 'not ready'; checks: Record<string, 'ok' | 'unreachable'> };

/** A named probe per store (`{ postgres: () => db.$queryRaw\`SELECT 1\`, redis: () => redis.ping() }`). */
export type ReadinessProbes = Record<string, () => Promise<unknown>>;

/**
 * Whether this process can do its work: every probe answers within 2 s. Every process's `/readyz`.
 * @example const readiness = await checkReadiness({ postgres: () => db.$queryRaw`SELECT 1`, redis: () => redis.ping() });
 */
export async function checkReadiness(probes: ReadinessProbes): Promise<Readiness> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map(async (name) => ((await within(probes[name], CHECK_TIMEOUT_MS)).ok ? 'ok' : 'unreachable') as 'ok' | 'unreachable'));
  const checks = Object.fromEntries(names.map((name, i) => [name, results[i]]));
  return { status: results.every((result) => result === 'ok') ? 'ready' : 'not ready', checks };
}
