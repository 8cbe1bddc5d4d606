import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { inServerSpan, requestTraceFields, type RequestTrace } from './tracing.ts';

const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request logs to: the process's logger (pino, or any with these calls). */
type RequestLogger = { info(fields: object, message?: string): void; child(bindings: Record<string, unknown>): RequestLogger };

/** What `requestContext` reads (deps; orgId once auth has run) and sets (requestId, logger). */
export type RequestContextEnv = {
  Variables: {
    deps: { logger: RequestLogger; metrics: { httpRequestDuration: { observe(labels: Record<string, string>, seconds: number): void } } };
    requestId: string;
    logger: RequestLogger;
    orgId?: string;
    errorCode?: string;
    trace?: RequestTrace;
  };
};

/**
 * Echoes a caller's `X-Request-Id` (when it is a sane token) or makes one; logs and measures every request. The API
 * and the dashboard both run it.
 * @example app.use('*', requestContext);
 */
export const requestContext = createMiddleware<RequestContextEnv>(async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && acceptableId.test(incoming) ? incoming : randomUUID();
  c.set('requestId', requestId);
  // before the handler: a header added to a finished response makes Hono build the response again
  c.header('X-Request-Id', requestId);
  const startedAt = performance.now();
  // in the request's span, so the request's log line carries its trace
  await inServerSpan(
    c.req.method,
    c.req.path,
    (name) => c.req.header(name),
    async (trace) => {
      const logger = c.get('deps').logger.child({ requestId, ...requestTraceFields(trace) });
      c.set('logger', logger);
      c.set('trace', trace);
      await next();
      const durationMs = performance.now() - startedAt;
      // the route pattern, not the path, so ids do not explode the label set (nor reach a span)
      const route = c.req.routePath;
      c.get('deps').metrics.httpRequestDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, durationMs / 1000);
      // errorCode: the `code` of an error answer, so a 4xx can be told apart in the logs without its body
      logger.info(
        { orgId: c.get('orgId'), method: c.req.method, route, status: c.res.status, errorCode: c.get('errorCode'), durationMs: Math.round(durationMs * 10) / 10 },
        'request',
      );
      return { route, status: c.res.status, hasQuery: c.req.url.includes('?') };
    },
  );
});
