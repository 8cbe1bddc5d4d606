import { AppError } from '@tidings/core';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const hasNoBody = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * At most `maxBytes` of body (else 413): a declared Content-Length is checked before anything is read; a streamed
 * body is counted as it arrives. It never touches `c.req.raw.body` for a declared length, because on Node that turns
 * the server's light request into a full web Request and reads the body through a web stream (measured: a third of
 * the API's time per message.send went to that).
 */
export function limitBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => {
    throw new AppError('BAD_REQUEST', `Request body is larger than ${maxBytes} bytes`, 413);
  };
  const countStreamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return createMiddleware<AppEnv>(async (c, next) => {
    if (hasNoBody(c.req.method)) return next();
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return countStreamed(c, next);
    if (Number(declared) > maxBytes) tooLarge();
    await next();
  });
}

/**
 * A request that carries a body must say `Content-Type: application/json` (else 415) and hold valid JSON (else 400),
 * before any validator sees it. The parsed body stays cached on the request for the validators.
 */
export const jsonBody = createMiddleware<AppEnv>(async (c, next) => {
  if (hasNoBody(c.req.method)) return next();
  // An empty body (curl -X DELETE, a POST with nothing to say) needs no content type. Over real HTTP a DELETE (or
  // POST) sent without a body and without Content-Length still arrives with an empty body stream.
  const text = await c.req.text();
  if (text === '') return next();
  const contentType = c.req.header('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    throw new AppError('BAD_REQUEST', `Content-Type must be application/json (got ${contentType ? `"${contentType.slice(0, 100)}"` : 'none'})`, 415);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's own message quotes the body; ours only says where to look.
    throw new AppError('BAD_REQUEST', 'Request body is not valid JSON');
  }
  // The validators read `c.req.json()`: hand them this parse rather than let Hono decode and parse the text again
  // (on a 1 MiB attachment that second parse was a quarter of the request's CPU).
  c.req.bodyCache.json = Promise.resolve(parsed);
  await next();
});
