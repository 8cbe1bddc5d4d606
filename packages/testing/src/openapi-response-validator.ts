import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Fetcher = { request: (input: string, init?: RequestInit) => Response | Promise<Response> };
type Schema = Record<string, any>;
type OperationDoc = { operationId?: string; servers?: Array<{ url: string }>; responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }> };
type OpenApiDoc = { openapi: string; servers?: Array<{ url: string }>; paths: Record<string, Record<string, OperationDoc>>; components?: { schemas?: Record<string, Schema> } };

/** Checks one response against the OpenAPI document; throws an Error saying what differs. */
export type ResponseValidator = (method: string, url: string, status: number, text: string) => void;

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  if (typeof schema.$ref !== 'string') return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return resolve(doc, doc.components?.schemas?.[name] ?? {});
}

/**
 * Closes every object schema that lists `properties`, so a field the document does not declare is a mismatch too
 * (zod's non-strict response objects would otherwise allow anything extra). `allOf` of objects is merged first:
 * closing the parts separately would make each reject the other's fields.
 */
function closeObjects(doc: OpenApiDoc, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(doc, s));
  if (!schema || typeof schema !== 'object') return schema;
  let s = { ...(schema as Schema) };
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((p: Schema) => resolve(doc, p));
    if (parts.every((p: Schema) => p.type === 'object' || p.properties)) {
      const { allOf: _allOf, ...rest } = s;
      s = {
        ...rest,
        type: 'object',
        properties: Object.assign({}, ...parts.map((p: Schema) => p.properties ?? {}), rest.properties),
        required: [...new Set(parts.flatMap((p: Schema) => p.required ?? []).concat(rest.required ?? []))],
      };
    }
  }
  for (const [key, value] of Object.entries(s)) {
    if (key === 'example' || key === 'examples' || key === 'default' || key === 'enum' || key === 'const') continue;
    s[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, closeObjects(doc, v)])) : closeObjects(doc, value);
  }
  if (s.properties && s.additionalProperties === undefined && s.unevaluatedProperties === undefined) s.additionalProperties = false;
  return s;
}

function pathMatchers(doc: OpenApiDoc) {
  return Object.keys(doc.paths)
    .map((template) => {
      // an operation may name its own server (the Resend-compatible ones live at the root, not under /v1)
      const servers = Object.values(doc.paths[template]!).find((operation) => operation.servers)?.servers ?? doc.servers;
      const prefix = (servers?.[0]?.url ?? '').replace(/\/+$/, '');
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      return { template, regex: new RegExp(`^${prefix}${pattern}/?$`), params: (template.match(/\{/g) ?? []).length };
    })
    .sort((a, b) => a.params - b.params); // `/phone-numbers/available` before `/phone-numbers/{id}`
}

/**
 * A validator of responses against an OpenAPI 3.1 document (ajv, JSON Schema 2020-12, formats checked): the
 * operation is found by method and path template, the response by status. An undocumented status, a body that
 * breaks the schema, or a field the schema does not declare is an error. Paths outside the document (health,
 * docs, unknown routes) and methods a path does not have (405) are not checked.
 * @example const check = createResponseValidator(doc); check('GET', '/v1/api-keys', 200, text);
 */
export function createResponseValidator(doc: OpenApiDoc): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const components = closeObjects(doc, doc.components ?? {}) as Schema;
  const matchers = pathMatchers(doc);
  const compiled = new Map<string, ValidateFunction>();

  return (method, url, status, text) => {
    const path = new URL(url, 'http://localhost').pathname;
    const match = matchers.find((m) => m.regex.test(path));
    if (!match) return;
    const operation = doc.paths[match.template][method.toLowerCase()];
    if (!operation || !METHODS.has(method.toLowerCase())) return;
    const name = `${operation.operationId ?? `${method} ${match.template}`}`;
    const response = operation.responses?.[String(status)] ?? operation.responses?.[`${String(status)[0]}XX`] ?? operation.responses?.default;
    if (!response) {
      throw new Error(`OpenAPI mismatch: ${name} (${method} ${path}) answered ${status}, a status the document does not list`);
    }
    const schema = response.content?.['application/json']?.schema;
    // a body of another type (an email's source, a CSV export) is checked by the tests that read it
    if (!schema && Object.keys(response.content ?? {}).length > 0) return;
    if (!schema) {
      if (text !== '') throw new Error(`OpenAPI mismatch: ${name} answered ${status} with a body, where the document has none`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`OpenAPI mismatch: ${name} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    const key = `${name} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      // refs point at #/components/...: compile each response schema with the (closed) components beside it
      validate = ajv.compile({ ...(closeObjects(doc, schema) as Schema), components });
      compiled.set(key, validate);
    }
    if (!validate(body)) {
      const errors = (validate.errors ?? []).map(
        (e) => `${e.instancePath || '(root)'} ${e.message}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
      );
      throw new Error(`OpenAPI mismatch: ${name} ${status} body does not match the document:\n  ${errors.join('\n  ')}\nbody: ${text.slice(0, 500)}`);
    }
  };
}

const validators = new WeakMap<object, Promise<ResponseValidator | null>>();

/**
 * The response validator for an app, built once from the document the app itself serves at `/v1/openapi.json`;
 * null for an app that serves none (it is not the API).
 * @example const check = await responseValidatorFor(app); check?.('GET', '/v1/api-keys', res.status, text);
 */
export function responseValidatorFor(app: Fetcher): Promise<ResponseValidator | null> {
  let validator = validators.get(app);
  if (!validator) {
    validator = (async () => {
      const response = await app.request('/v1/openapi.json');
      if (response.status !== 200) return null;
      const doc = (await response.json().catch(() => null)) as OpenApiDoc | null;
      return doc?.openapi && doc.paths ? createResponseValidator(doc) : null;
    })();
    validators.set(app, validator);
  }
  return validator;
}
