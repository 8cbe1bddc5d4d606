import { AppError } from '@tidings/core';
import type { HonoRequest, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const hasNoBody = (method: string) => method === 'GET' || method === 'HEAD';
const isJson = (contentType: string) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

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
 * The validators read `c.req.json()`, which in Hono parses the cached text again on every call (a value put in
 * `bodyCache.json` is never read): this request's `json()` answers our one parse instead (on a 1 MiB attachment
 * the second parse was a quarter of the request's CPU).
 */
function answerJson(req: HonoRequest, parsed: unknown): void {
  const answer = Promise.resolve(parsed);
  req.json = <T>() => answer as Promise<T>;
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
  const contentType = c.req.header('content-type') ?? '';
  if (text === '') {
    // Declared JSON but empty (a client that always sends the header): no fields, as `{}` says, rather than
    // the validator's "Malformed JSON"; an operation with required fields then names them.
    if (isJson(contentType)) {
      // what c.req.text() answers from then on (the Idempotency-Key's fingerprint reads it); Hono keeps the promise there
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
      answerJson(c.req, {});
    }
    return next();
  }
  if (!isJson(contentType)) {
    throw new AppError('BAD_REQUEST', `Content-Type must be application/json (got ${contentType ? `"${contentType.slice(0, 100)}"` : 'none'})`, 415);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's own message quotes the body; ours only says where to look.
    throw new AppError('BAD_REQUEST', 'Request body is not valid JSON');
  }
  answerJson(c.req, parsed);
  await next();
});
