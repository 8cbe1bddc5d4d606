import type { RouteConfig } from '@asteasolutions/zod-to-openapi';

/** Which API keys may call an operation: every key (`sending`: message.send, sendBatch, list, get, cancel, getSource) or full-access keys only. */
export type Permission = 'full' | 'sending';

/**
 * One operation of the public API, declared once. The API attaches a handler to it (`.openapi(route(ops.get), ...)`
 * in apps/api/src/routes/), the OpenAPI document is generated from it, and the SDK calls it by `operationId`
 * (its method and path come from here through packages/sdk/src/operations.generated.ts).
 */
export type OperationDefinition = RouteConfig & {
  /** `<resource>.<verb>`, as in API.md: `message.send`, `contact.bulkCreate`. */
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Below `/v1` (or below `servers[0].url` when given: the Resend-compatible ones are at the root), with `{name}` path parameters. */
  path: string;
  tags: string[];
  summary: string;
  description: string;
  permission: Permission;
  /** Takes an `Idempotency-Key` header: the first answer is stored and replayed (the SDK sends one per call). */
  idempotent: boolean;
  /**
   * Changes shared configuration that live sends read (contacts, templates, segments, domains, numbers): a test key
   * gets 403, except in an organization made for testing.
   */
  changesShared?: true;
  /**
   * The operation's own error messages, where the shared wording does not say it: the 409 it gives besides an
   * Idempotency-Key reused with another body (as the core words it), a 404 naming something else than its group's noun.
   * The OpenAPI document's examples.
   */
  errors?: { 404?: string; 409?: string };
};

/**
 * Declares an operation; the type keeps every literal (paths, schemas) so handlers and the SDK are typed from it.
 * @example
 * export const thingOperations = {
 *   get: defineOperation({ operationId: 'thing.get', method: 'get', path: '/things/{id}', permission: 'full', idempotent: false,
 *     tags: ['Things'], summary: 'Get a thing', description: '...', request: { params: idParam('thg') },
 *     responses: { 200: { description: 'The thing', ...json(Thing) } } }),
 * };
 */
export function defineOperation<const D extends OperationDefinition>(definition: D): D {
  return definition;
}

/**
 * A JSON body (request or response) of the given schema, in the OpenAPI shape; `example` where this operation's
 * answer differs from the schema's own example (message.send answers `queued`).
 * @example responses: { 200: { description: 'The contact', ...json(Contact) } }
 */
export const json = <T>(schema: T, example?: unknown) => ({ content: { 'application/json': example === undefined ? { schema } : { schema, example } } });
