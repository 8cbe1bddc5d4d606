import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a caller's `X-Request-Id` (when it is a sane token) or makes one; logs and measures every request. */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && acceptableId.test(incoming) ? incoming : randomUUID();
  const logger = c.var.deps.logger.child({ requestId });
  c.set('requestId', requestId);
  c.set('logger', logger);
  const startedAt = performance.now();
  await next();
  c.header('X-Request-Id', requestId);
  const durationMs = performance.now() - startedAt;
  // the route pattern, not the path, so ids do not explode the label set
  const route = c.req.routePath;
  c.var.deps.metrics.httpRequestDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, durationMs / 1000);
  logger.info({ orgId: c.var.orgId, method: c.req.method, route, status: c.res.status, durationMs: Math.round(durationMs * 10) / 10 }, 'request');
});
