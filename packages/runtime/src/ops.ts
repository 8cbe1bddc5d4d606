import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import { serveHttp, type RunningServer } from './http-server.ts';
import type { Readiness } from './readiness.ts';

/** What the ops endpoints read: the process's readiness check and its metrics registry (core's `Deps` has both). */
export type OpsSources = { readiness(): Promise<Readiness>; metrics: { registry: Registry } };

/**
 * `/healthz` (the process answers), `/readyz` (its stores answer too, so a load balancer may send traffic) and
 * `/metrics` (Prometheus). The API and the dashboard mount these on their own port; the workers serve them on an ops
 * port through `startOpsServer`. The one implementation of all three.
 * @example app.route('/', opsRoutes(deps));
 */
export function opsRoutes(sources: OpsSources) {
  return new Hono()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const readiness = await sources.readiness();
      return c.json(readiness, readiness.status === 'ready' ? 200 : 503);
    })
    .get('/metrics', async (c) => {
      const { registry } = sources.metrics;
      return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
    });
}

/**
 * The ops port of a process that has no HTTP app of its own (the workers): `opsRoutes` alone. Resolves once
 * listening on `port` (0: any free one); rejects when the port is taken. `close()` stops listening.
 * @example const ops = await startOpsServer(deps, config.sendWorker.metricsPort); ... await ops.close();
 */
export async function startOpsServer(sources: OpsSources & { logger: Logger }, port: number): Promise<RunningServer> {
  const app = new Hono();
  app.route('/', opsRoutes(sources));
  app.all('*', (c) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ code: 'BAD_REQUEST', message: 'Only GET is allowed here' }, 405);
    return c.json({ code: 'NOT_FOUND', message: 'Not found: this port serves /healthz, /readyz and /metrics' }, 404);
  });
  app.onError((error, c) => {
    sources.logger.error({ err: error, path: c.req.path }, 'ops request failed');
    return c.json({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' }, 500);
  });
  return serveHttp(app.fetch, port);
}
