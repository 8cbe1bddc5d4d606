import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import { serveHttp, type RunningServer } from './http-server.ts';
import type { Readiness } from './readiness.ts';

/** What the ops endpoints read: the process's readiness check and its metrics registry (core's `Deps` has both). */
export type OpsSources = { readiness(): Promise<Readiness>; metrics: { registry: Registry } };

/**
 * `/healthz` (the process answers) and `/readyz` (its stores answer too, so a load balancer may send traffic): safe on
 * a public port, which is where the API mounts them (a load balancer probes the port it sends traffic to).
 * @example app.route('/', healthRoutes(deps));
 */
export function healthRoutes(sources: Pick<OpsSources, 'readiness'>) {
  return new Hono()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const readiness = await sources.readiness();
      return c.json(readiness, readiness.status === 'ready' ? 200 : 503);
    });
}

/**
 * `healthRoutes` and `/metrics` (Prometheus), which tells about traffic and so is not for a public port: the API and
 * the workers serve these on an ops port through `startOpsServer`; the dashboard mounts them on its own port.
 * The one implementation of all three.
 * @example app.route('/', opsRoutes(deps));
 */
export function opsRoutes(sources: OpsSources) {
  return healthRoutes(sources).get('/metrics', async (c) => {
    const { registry } = sources.metrics;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
}

/**
 * The ops port of a process (the API, the workers): `opsRoutes` alone. Resolves once listening on `port` (0: any
 * free one) of `host` (OPS_HOST: 127.0.0.1 unless the operator opens it, as the image does for its probes); rejects
 * when the port is taken. `close()` stops listening.
 * @example const ops = await startOpsServer(deps, config.sendWorker.metricsPort, config.opsHost); ... await ops.close();
 */
export async function startOpsServer(sources: OpsSources & { logger: Logger }, port: number, host?: string): Promise<RunningServer> {
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
  return serveHttp(app.fetch, port, host);
}
