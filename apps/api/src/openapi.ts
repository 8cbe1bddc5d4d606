import { createRoute } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import { ErrorBody, ResendErrorBody, type OperationDefinition } from '@tidings/contracts';
import { idempotent } from './middleware/idempotency.ts';
import { refuseTestKeyChanges, requireFullPermission } from './middleware/permission.ts';
import { toResendError } from './middleware/resend-errors.ts';

const errorContent = (code: string, message: string) => ({ 'application/json': { schema: ErrorBody, example: { code, message } } });

/** The error responses every authenticated operation can give, in the `{code, message}` shape. */
export const errorResponses = {
  400: {
    description: 'BAD_REQUEST: validation failed, invalid JSON or wrong content type',
    content: errorContent('BAD_REQUEST', 'name: Too small: expected string to have >=1 characters'),
  },
  401: {
    description: 'UNAUTHORIZED: missing, unknown, disabled or deleted API key',
    content: errorContent('UNAUTHORIZED', 'Invalid API key: unknown, disabled, rotated out or deleted'),
  },
  403: {
    description: 'FORBIDDEN: the key may not do this, or the organization is suspended',
    content: errorContent(
      'FORBIDDEN',
      'This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource',
    ),
  },
  404: { description: 'NOT_FOUND: no such resource in this organization', content: errorContent('NOT_FOUND', 'API key not found') },
  409: { description: 'CONFLICT: duplicate, or Idempotency-Key reuse', content: errorContent('CONFLICT', 'Idempotency-Key was already used with a different request body') },
  429: {
    description: 'TOO_MANY_REQUESTS: over the rate limit; see Retry-After',
    content: errorContent('TOO_MANY_REQUESTS', 'Rate limit of 100 requests per minute exceeded; retry in 12 s'),
  },
  500: {
    description: 'INTERNAL_SERVER_ERROR: unexpected; the message carries no internals',
    content: errorContent('INTERNAL_SERVER_ERROR', 'Internal server error; quote request id 3f1c... when reporting it'),
  },
  503: {
    description: 'SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After',
    content: errorContent('SERVICE_UNAVAILABLE', 'The database did not answer within the 10000 ms one statement may take; narrow the request or retry later.'),
  },
} as const;

/** Only operations that take a body can get these. */
const bodyErrorResponses = {
  413: { description: 'BAD_REQUEST: the body is larger than the limit', content: errorContent('BAD_REQUEST', 'Request body is larger than 1048576 bytes') },
  415: {
    description: 'BAD_REQUEST: a body whose Content-Type is not application/json',
    content: errorContent('BAD_REQUEST', 'Content-Type must be application/json (got "text/plain")'),
  },
} as const;

/**
 * The route of an operation declared in @tidings/contracts, ready for `.openapi(route, handler)`: adds bearer
 * security, the shared error responses, the check that refuses `sending` keys (unless `permission: 'sending'`), the
 * one that refuses test keys' changes to shared configuration (when `changesShared`) and Idempotency-Key handling
 * (when `idempotent`).
 * @example export const thingRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(route(ops.get), async (c) => ...);
 */
export function route<const D extends OperationDefinition>(definition: D) {
  const { permission, idempotent: isIdempotent, changesShared, errors: _ownErrors, ...config } = definition; // own errors: the document's (openapi-document.ts)
  return createRoute({
    ...config,
    security: [{ bearerAuth: [] }],
    middleware: [...(permission === 'sending' ? [] : [requireFullPermission]), ...(changesShared ? [refuseTestKeyChanges] : []), ...(isIdempotent ? [idempotent] : [])] as [],
    responses: {
      ...errorResponses,
      ...(changesShared
        ? { 403: { ...errorResponses[403], description: `${errorResponses[403].description}; or a test key changing shared configuration that live sends read` } }
        : {}),
      ...(config.request?.body ? bodyErrorResponses : {}),
      ...config.responses,
    },
  });
}

/**
 * The route of a Resend-compatible operation: as `route`, with its errors documented in Resend's
 * `{ statusCode, name, message }` shape (the `resendErrors` middleware answers them so).
 * @example export const emailRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(resendRoute(ops.get), async (c) => ...);
 */
export function resendRoute<const D extends OperationDefinition>(definition: D) {
  const base = route(definition);
  const errors = Object.entries(base.responses as Record<string, { description: string; content?: { 'application/json': { example: ErrorBody } } }>)
    .filter(([status, response]) => !status.startsWith('2') && response.content)
    .map(([status, response]) => [
      status,
      { ...response, content: { 'application/json': { schema: ResendErrorBody, example: toResendError(Number(status), response.content!['application/json'].example) } } },
    ]);
  return { ...base, responses: { ...base.responses, ...Object.fromEntries(errors) } as typeof base.responses };
}

/**
 * A 200 whose JSON the core built as text already (message.list's page comes from Postgres as JSON): typed as the
 * operation's answer `T`, so the route is still checked against its declaration.
 * @example .openapi(route(ops.list), async (c) => jsonText<Page<Message>>(c, await listMessagesJson(deps, orgId, query)))
 */
export function jsonText<T>(c: Context, text: string): TypedResponse<T, 200, 'json'> {
  return c.body(text, 200, { 'content-type': 'application/json' }) as unknown as TypedResponse<T, 200, 'json'>;
}
