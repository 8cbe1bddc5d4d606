import type { Deps, Logger, Principal, RequestContext } from '@tidings/core';
import type { RequestTrace } from '@tidings/runtime';

/**
 * What middleware puts on the Hono context for the handlers after it. Read with `c.get('deps')`, not `c.var.deps`:
 * Hono's `c.var` copies every variable into a new object at each read, several times per request.
 */
export type AppEnv = {
  Variables: {
    deps: Deps;
    requestId: string;
    logger: Logger;
    principal: Principal;
    orgId: string;
    /** The request's Idempotency-Key, once reserved for it (operations that take one). */
    idempotencyKey?: string;
    /** The `code` of the error answer, once one is made (logged with the request). */
    errorCode?: string;
    /** The request's trace while tracing, handed on to the jobs it adds. */
    trace?: RequestTrace;
  };
};

/**
 * The request's context for core (dependencies, organization, the key's mode, trace), from what the middleware put
 * on the Hono context.
 * @example await sendMessage(requestContext(c), c.req.valid('json'));
 */
export function requestContext(c: { get<K extends keyof AppEnv['Variables']>(key: K): AppEnv['Variables'][K] }): RequestContext {
  return { deps: c.get('deps'), orgId: c.get('orgId'), mode: c.get('principal').mode, trace: c.get('trace') };
}
