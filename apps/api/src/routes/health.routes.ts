import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

const CHECK_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'unreachable'> {
  try {
    await Promise.race([probe(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref())]);
    return 'ok';
  } catch {
    return 'unreachable'; // the answer itself says what failed; the cause is the operator's to find in that service
  }
}

/**
 * `/healthz`: the process answers. `/readyz`: Postgres and Redis answer too, so a load balancer may send traffic.
 * `/metrics`: Prometheus.
 */
export const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { db, redis } = c.var.deps;
    const [postgres, redisStatus] = await Promise.all([check(() => db.$queryRaw`SELECT 1`), check(() => redis.ping())]);
    const isReady = postgres === 'ok' && redisStatus === 'ok';
    return c.json({ status: isReady ? 'ready' : 'not ready', checks: { postgres, redis: redisStatus } }, isReady ? 200 : 503);
  })
  .get('/metrics', async (c) => {
    const { registry } = c.var.deps.metrics;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
