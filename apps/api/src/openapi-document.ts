import type { OpenAPIHono } from '@hono/zod-openapi';
import { operations, RESEND_COMPATIBLE_TAG, resendCompatibleOperations, type ErrorBody, type OperationDefinition } from '@tidings/contracts';
import { ORGANIZATION_SUSPENDED_MESSAGE } from '@tidings/core';
import type { AppEnv } from './env.ts';
import { toResendError } from './middleware/resend-errors.ts';
import { API_INTRODUCTION } from './openapi-introduction.ts';

type Schema = { $ref?: string; type?: string; required?: string[]; properties?: Record<string, unknown>; allOf?: Schema[]; oneOf?: Schema[]; anyOf?: Schema[] };
type Content = { 'application/json'?: { schema?: Schema; example?: unknown } };
type Operation = {
  operationId?: string;
  description?: string;
  tags?: string[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Content };
  responses: Record<string, { description: string; content?: Content }>;
};
type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>;

/** The sidebar of /docs: what a caller needs first at the top, the keys that back the dashboard last. */
/** The sidebar's groups in order, each with the line /docs shows under its name. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Messages', description: 'Send email and SMS, one or in batches, and follow each message to delivery.' },
  { name: 'Verify', description: 'One-time codes by SMS or email: random, stored as a keyed hash, checked once, rate limited; SMS behind the fraud guard.' },
  { name: 'Broadcasts', description: 'One message to a segment or every contact: scheduled, fanned out, unsubscribe links included.' },
  { name: 'Contacts', description: 'The people you send to, with their fields and consent; bulk import.' },
  { name: 'Templates', description: "Liquid templates of a subject and body, rendered with each message's variables." },
  { name: 'Segments', description: 'Saved filters over contacts, the audience of broadcasts.' },
  { name: 'Topics', description: 'Subscription categories contacts choose on their preference page; a broadcast may go to one.' },
  { name: 'Suppressions', description: 'Addresses and numbers never sent to again: bounces, complaints, opt-outs.' },
  { name: 'Webhooks', description: 'Endpoints that receive signed events (Standard Webhooks) as messages change status.' },
  { name: 'Email domains', description: 'Sending domains and the DNS records that verify them.' },
  { name: 'Phone numbers', description: 'Numbers to send SMS from and receive replies on.' },
  { name: 'Sandbox', description: 'What test keys sent: nothing leaves, every message lands here.' },
  { name: RESEND_COMPATIBLE_TAG, description: "The routes of Resend's API, so its SDKs and tools work against Tidings unchanged." },
  { name: 'Organization', description: "The organization's own settings: the countries an SMS may go to." },
  { name: 'Audit log', description: 'Who changed what, when and from where: keys, members, webhooks, domains, numbers and more.' },
  { name: 'API keys', description: 'Keys for the API: full or sending-only, live or test, rotated without downtime.' },
];

/** What each operation group's ids name in a NOT_FOUND message (`Message not found`). */
const NOUN_OF_GROUP: Record<string, string> = {
  message: 'Message',
  contact: 'Contact',
  template: 'Template',
  segment: 'Segment',
  topic: 'Topic',
  verification: 'Verification',
  webhook: 'Webhook',
  emailDomain: 'Email domain',
  phoneNumber: 'Phone number',
  apiKey: 'API key',
  broadcast: 'Broadcast',
  suppression: 'Suppression',
  resend: 'Message',
};

/** NOT_FOUND of operations without a path id whose body names ids deeper than its top level (`topics[].topicId`). */
const NOT_FOUND_OF_NESTED_ID: Record<string, string> = {
  'contact.create': 'topics: topic top_01JD8Z5Q9X4N7W2M3K6P0R1T5V not found',
};

/** Every operation's definition, by id: what the document states of each comes from there. */
const DEFINITIONS = new Map<string, OperationDefinition>([...operations, ...Object.values(resendCompatibleOperations)].map((op) => [op.operationId, op]));

/** The longest id a path takes (`idParam`). */
const MAX_ID_LENGTH = 64;

const errorExample = (code: string, message: string) => ({ code, message });

function resolveSchema(schema: Schema | undefined, document: OpenApiDocument): Schema | undefined {
  return schema?.$ref ? resolveSchema(document.components?.schemas?.[schema.$ref.split('/').pop()!] as Schema | undefined, document) : schema;
}

/** The error examples of a Resend-compatible operation, in Resend's `{ statusCode, name, message }` shape. */
function inResendShape(operation: Operation): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    const json = response.content?.['application/json'];
    const example = json?.example as Partial<ErrorBody> | undefined;
    if (json && !status.startsWith('2') && typeof example?.code === 'string') json.example = toResendError(Number(status), example as ErrorBody);
  }
}

/** The first required field of a request body schema, following `$ref`s, or undefined when nothing is required. */
function firstRequiredField(schema: Schema | undefined, document: OpenApiDocument): string | undefined {
  if (!schema) return undefined;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return firstRequiredField(document.components?.schemas?.[name] as Schema | undefined, document);
  }
  if (schema.required?.length) return schema.required[0];
  for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const field = firstRequiredField(part, document);
    if (field) return field;
  }
  return undefined;
}

/** The `...Id` fields of a request body schema (ids of other things, 404 when not the organization's), following `$ref`s. */
function idFieldsOf(schema: Schema | undefined, document: OpenApiDocument): string[] {
  if (!schema) return [];
  if (schema.$ref) return idFieldsOf(document.components?.schemas?.[schema.$ref.split('/').pop()!] as Schema | undefined, document);
  const own = Object.keys(schema.properties ?? {}).filter((name) => /^[a-z]+Id$/.test(name));
  return [...own, ...[...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((part) => idFieldsOf(part, document))];
}

/** `templateId` -> `Template not found`, as the core names the kind of a missing id. */
const notFoundOfField = (field: string) => `${field[0]!.toUpperCase()}${field.slice(1, -2)} not found`;

/** Sets the example of one response, keeping its schema; a response without JSON content is left alone. */
function setExample(operation: Operation, status: string, example: unknown): void {
  const json = operation.responses[status]?.content?.['application/json'];
  if (json) json.example = example;
}

/**
 * Makes each operation's documented errors its own: examples worded as that operation words them (its definition's
 * `errors`), only the errors it can give (no 404 without an id, no 400 without input, 409 where something can
 * conflict). Success examples particular to an operation are in its definition (message.send: `queued`).
 */
function specializeOperation(operation: Operation, document: OpenApiDocument): void {
  const id = operation.operationId ?? '';
  const [group = ''] = id.split('.');
  const { responses } = operation;
  const hasPathId = operation.parameters?.some((p) => p.in === 'path') ?? false;
  const definition = DEFINITIONS.get(id);
  // a strict query without parameters (organization.get) still refuses an unknown one
  const hasQuery = (operation.parameters?.some((p) => p.in === 'query') ?? false) || definition?.request?.query !== undefined;
  const body = operation.requestBody?.content?.['application/json']?.schema;

  if (body && resolveSchema(body, document)?.type === 'array') {
    setExample(operation, '400', errorExample('BAD_REQUEST', 'body: Invalid input: expected array, received object'));
  } else if (body) {
    const field = firstRequiredField(body, document);
    setExample(operation, '400', errorExample('BAD_REQUEST', field ? `${field}: required` : 'nickname: unknown field'));
  } else if (hasQuery) {
    setExample(operation, '400', errorExample('BAD_REQUEST', 'stauts: unknown query parameter'));
  } else if (hasPathId) {
    setExample(operation, '400', errorExample('BAD_REQUEST', `id: Too big: expected string to have <=${MAX_ID_LENGTH} characters`));
  } else delete responses['400'];

  const noun = NOUN_OF_GROUP[group];
  const notFound = definition?.errors?.[404] ?? (noun && `${noun} not found`);
  // ids in the body or query (templateId, segmentId, ...) are 404 too when they are not the organization's
  const referencedIds = [...idFieldsOf(body, document), ...(operation.parameters ?? []).filter((p) => p.in === 'query' && /^[a-z]+Id$/.test(p.name)).map((p) => p.name)];
  if (hasPathId && notFound) setExample(operation, '404', errorExample('NOT_FOUND', notFound));
  else if (referencedIds.length > 0) setExample(operation, '404', errorExample('NOT_FOUND', notFoundOfField(referencedIds[0]!)));
  else if (NOT_FOUND_OF_NESTED_ID[id]) setExample(operation, '404', errorExample('NOT_FOUND', NOT_FOUND_OF_NESTED_ID[id]));
  else delete responses['404'];

  const conflict = definition?.errors?.[409];
  if (conflict) setExample(operation, '409', errorExample('CONFLICT', conflict));
  else if (definition?.idempotent) {
    setExample(operation, '409', errorExample('CONFLICT', 'Idempotency-Key was already used with a different request body'));
  } else delete responses['409'];

  // a sending key may call this operation: its only 403 is a suspended organization
  const forbidden = responses['403']?.content?.['application/json']?.example as { message?: string } | undefined;
  if (forbidden && definition?.permission === 'sending') setExample(operation, '403', errorExample('FORBIDDEN', ORGANIZATION_SUSPENDED_MESSAGE));
}

/**
 * The OpenAPI 3.1 document of /v1, as /docs shows it: the introduction, the sidebar order, and every operation's
 * examples true to what it answers. Built once per app.
 * @example v1.get('/openapi.json', (c) => c.json(buildOpenApiDocument(v1)));
 */
export function buildOpenApiDocument(v1: OpenAPIHono<AppEnv>): OpenApiDocument {
  // a copy: the generated document shares response objects between operations, and each is changed on its own
  const generated = v1.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Tidings API',
      version: '1.0.0',
      description: API_INTRODUCTION,
      contact: { name: 'Tidings' },
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    servers: [{ url: '/v1' }],
    tags: TAGS,
  });
  const document = structuredClone(generated);
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, Operation>)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      specializeOperation(operation, document);
      if (operation.tags?.includes(RESEND_COMPATIBLE_TAG)) inResendShape(operation);
    }
  }
  return document;
}
