import { AppError, isDatabaseBusy, isStatementTimeout, RetryLaterError } from '@tidings/core';
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../env.ts';

/** Turns anything thrown into `{code, message}`: AppErrors as they are, the rest as a logged 500 that hides internals. */
export function handleError(error: Error, c: Context<AppEnv>) {
  if (error instanceof AppError) {
    c.set('errorCode', error.code);
    if (error instanceof RetryLaterError) c.header('Retry-After', String(error.retryAfterSeconds));
    return c.json({ code: error.code, message: error.message }, error.status as 400);
  }
  if (error instanceof HTTPException && error.status < 500) {
    c.set('errorCode', 'BAD_REQUEST');
    return c.json({ code: 'BAD_REQUEST', message: error.message || 'Bad request' }, error.status);
  }
  c.set('errorCode', 'INTERNAL_SERVER_ERROR');
  const logger = c.get('logger') ?? c.get('deps')?.logger;
  if (isDatabaseBusy(error)) {
    // Overload, not a bug: nothing was written (the transaction never started), so a retry is safe.
    logger?.warn({ requestId: c.get('requestId'), orgId: c.get('orgId') }, 'no database connection within maxWait');
    c.header('Retry-After', '1');
    return c.json({ code: 'INTERNAL_SERVER_ERROR', message: 'The server is busy: no database connection was free in time; nothing was done, retry in 1 s' }, 500);
  }
  if (isStatementTimeout(error)) {
    // One statement ran past DATABASE_STATEMENT_TIMEOUT_MS: an expensive request or an overloaded database, not a bug.
    const { requests } = c.get('deps').config.statementTimeoutMs;
    logger?.warn({ requestId: c.get('requestId'), orgId: c.get('orgId'), path: c.req.path }, 'statement timeout');
    c.set('errorCode', 'SERVICE_UNAVAILABLE');
    c.header('Retry-After', '5');
    return c.json(
      { code: 'SERVICE_UNAVAILABLE', message: `The database did not answer within the ${requests} ms one statement may take; narrow the request or retry later.` },
      503,
    );
  }
  logger?.error({ err: error, requestId: c.get('requestId'), orgId: c.get('orgId') }, 'unhandled error');
  return c.json({ code: 'INTERNAL_SERVER_ERROR', message: `Internal server error; quote request id ${c.get('requestId') ?? 'unknown'} when reporting it` }, 500);
}

type RouteRecord = { method: string; path: string };

function matchesPath(pattern: string, path: string): boolean {
  if (pattern.endsWith('*')) return false; // middleware, not an endpoint
  const regex = new RegExp(`^${pattern.replace(/\/:[^/]+/g, '/[^/]+').replace(/\//g, '\\/')}\\/?$`);
  return regex.test(path);
}

/** 404 for a path nothing serves; 405 (code BAD_REQUEST) for a path served under other methods. */
export function notFoundOrWrongMethod(app: Hono<AppEnv>) {
  return (c: Context<AppEnv>) => {
    const routes = (app.routes as RouteRecord[]).filter((r) => r.method !== 'ALL');
    const allowed = [...new Set(routes.filter((r) => matchesPath(r.path, c.req.path)).map((r) => r.method))];
    if (allowed.length > 0) {
      c.set('errorCode', 'BAD_REQUEST');
      c.header('Allow', allowed.join(', '));
      return c.json({ code: 'BAD_REQUEST', message: `Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}` }, 405);
    }
    c.set('errorCode', 'NOT_FOUND');
    return c.json({ code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}` }, 404);
  };
}
