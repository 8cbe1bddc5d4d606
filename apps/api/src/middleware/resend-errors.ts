import type { ErrorBody, ResendErrorBody, ResendErrorName } from '@tidings/contracts';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/** The first segments of Resend's API paths beside `/emails`, which Tidings does not serve at its root. */
export const RESEND_ONLY_ROOTS = ['domains', 'api-keys', 'audiences', 'contacts', 'broadcasts', 'segments', 'topics', 'templates', 'webhooks'] as const;

/** Resend's name for each of our error codes, where the code alone decides it. */
const NAME_OF_CODE: Record<string, ResendErrorName> = {
  BAD_REQUEST: 'validation_error',
  NOT_FOUND: 'not_found',
  CONFLICT: 'validation_error',
  TOO_MANY_REQUESTS: 'rate_limit_exceeded',
  RATE_LIMITED: 'rate_limit_exceeded',
  INTERNAL_SERVER_ERROR: 'internal_server_error',
  // Resend has no name of its own for it; a server-side error is what its SDK and clients retry
  SERVICE_UNAVAILABLE: 'internal_server_error',
};

function nameOf(status: number, { code, message }: ErrorBody): ResendErrorName {
  if (status === 405) return 'method_not_allowed';
  if (code === 'UNAUTHORIZED') return message.startsWith('Missing') ? 'missing_api_key' : 'invalid_api_key';
  if (code === 'FORBIDDEN') return message.includes('sending permission') ? 'restricted_api_key' : 'invalid_access';
  if (message.startsWith('Idempotency-Key:')) return 'invalid_idempotency_key';
  if (message.includes('Idempotency-Key was already used')) return 'invalid_idempotent_request';
  if (message.includes('Idempotency-Key is still in progress')) return 'concurrent_idempotent_requests';
  return NAME_OF_CODE[code] ?? 'validation_error';
}

/**
 * Our `{ code, message }` error as Resend's `{ statusCode, name, message }` (the status stays ours: 401 for a bad
 * key, 400 for bad input), for the answers and the documented examples of the Resend-compatible routes.
 * @example toResendError(404, { code: 'NOT_FOUND', message: 'Message not found' }) // { statusCode: 404, name: 'not_found', message: 'Message not found' }
 */
export function toResendError(status: number, error: ErrorBody): ResendErrorBody {
  return { statusCode: status, name: nameOf(status, error), message: error.message };
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' && body !== null && typeof (body as ErrorBody).code === 'string' && typeof (body as ErrorBody).message === 'string';

/**
 * Every error answer below it, however made (a refused key, a validation failure, a replayed Idempotency-Key answer,
 * an unknown route), in Resend's shape: the official SDK reads `name` and `message` from it.
 * @example app.use('/emails/*', resendErrors);
 */
export const resendErrors = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400) return;
  const body: unknown = await c.res
    .clone()
    .json()
    .catch(() => null);
  if (!isErrorBody(body)) return;
  // Hono carries the other headers (rate limit, request id, Retry-After) over to the new response
  c.res = new Response(JSON.stringify(toResendError(c.res.status, body)), { status: c.res.status, headers: { 'content-type': 'application/json' } });
});
