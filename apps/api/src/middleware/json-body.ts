import { AppError } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/**
 * A request that carries a body must say `Content-Type: application/json` (else 415) and hold valid JSON (else 400),
 * before any validator sees it. The parsed body stays cached on the request for the validators.
 */
export const jsonBody = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.raw.body === null) return next();
  // an empty body (curl -X DELETE, a POST with nothing to say) needs no content type
  const text = await c.req.text();
  if (text === '') return next();
  const contentType = c.req.header('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    // Over real HTTP a DELETE (or POST) sent without a body and without Content-Length still arrives with an empty
    // body stream: only actual content needs a JSON content type.
    if ((await c.req.text()) === '') return next();
    throw new AppError('BAD_REQUEST', `Content-Type must be application/json (got ${contentType ? `"${contentType.slice(0, 100)}"` : 'none'})`, 415);
  }
  try {
    JSON.parse(text);
  } catch {
    // The parser's own message quotes the body; ours only says where to look.
    throw new AppError('BAD_REQUEST', 'Request body is not valid JSON');
  }
  await next();
});
