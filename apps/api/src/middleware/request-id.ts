import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a caller's `X-Request-Id` (when it is a sane token) or makes one; logs one line per request. */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && acceptableId.test(incoming) ? incoming : randomUUID();
  const logger = c.var.deps.logger.child({ requestId });
  c.set('requestId', requestId);
  c.set('logger', logger);
  const startedAt = performance.now();
  await next();
  c.header('X-Request-Id', requestId);
  logger.info(
    {
      orgId: c.var.orgId,
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    },
    'request',
  );
});
