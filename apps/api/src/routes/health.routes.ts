import { checkReadiness } from '@tidings/core';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * `/healthz`: the process answers. `/readyz`: Postgres and Redis answer too, so a load balancer may send traffic.
 * `/metrics`: Prometheus. The workers serve the same three through core's `startOpsServer`.
 */
export const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const readiness = await checkReadiness(c.var.deps);
    return c.json(readiness, readiness.status === 'ready' ? 200 : 503);
  })
  .get('/metrics', async (c) => {
    const { registry } = c.var.deps.metrics;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
