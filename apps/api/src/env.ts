import type { Deps, Logger, Principal } from '@tidings/core';

/** What middleware puts on the Hono context for the handlers after it. */
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
  };
};
