import SwaggerParser from '@apidevtools/swagger-parser';
import * as contracts from '@tidings/contracts';
import { createResponseValidator } from '@tidings/testing';
import { setupApi } from './setup.ts';

// Contract checks that do not trust our own code: the served document is read by a third-party validator, and
// the operation ids are compared with the list written out from API.md by hand.
const t = setupApi();
afterAll(() => t.close());

type Operation = {
  operationId: string;
  servers?: Array<{ url: string }>;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; schema?: Record<string, unknown>; example?: unknown }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Record<string, unknown>; example?: unknown }> }>;
};

async function servedDocument() {
  const res = await t.anonymous.get('/v1/openapi.json');
  expect(res.status).toBe(200);
  return res.body;
}

function operationsOf(doc: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
}

/** Where an operation is served: below /v1, or below its own server (the Resend-compatible ones at the root). */
const urlOf = (op: Operation, path: string) => `${(op.servers?.[0]?.url ?? '/v1').replace(/\/$/, '')}${path}`;
const isResendCompatible = (op: Operation) => op.tags?.includes(contracts.RESEND_COMPATIBLE_TAG) ?? false;

// Every operation of API.md, group by group.
const API_KEY_OPERATION_IDS = ['apiKey.create', 'apiKey.list', 'apiKey.rotate', 'apiKey.disable', 'apiKey.enable', 'apiKey.delete'];
const OPERATION_IDS_OF_OTHER_GROUPS = [
  'message.send',
  'message.sendBatch',
  'message.list',
  'message.get',
  'message.cancel',
  'contact.create',
  'contact.list',
  'contact.get',
  'contact.update',
  'contact.delete',
  'contact.bulkCreate',
  'template.create',
  'template.list',
  'template.get',
  'template.update',
  'template.delete',
  'template.listVersions',
  'template.preview',
  'webhook.create',
  'webhook.list',
  'webhook.get',
  'webhook.update',
  'webhook.delete',
  'webhook.test',
  'webhook.listEvents',
  'webhook.rotateSecret',
  'segment.create',
  'segment.list',
  'segment.get',
  'segment.update',
  'segment.delete',
  'segment.listContacts',
  'emailDomain.add',
  'emailDomain.list',
  'emailDomain.get',
  'emailDomain.verify',
  'emailDomain.setDefault',
  'emailDomain.delete',
  'phoneNumber.searchAvailable',
  'phoneNumber.purchase',
  'phoneNumber.list',
  'phoneNumber.get',
  'phoneNumber.update',
  'phoneNumber.release',
];
const FIRST_ROUND_OPERATION_IDS = [...API_KEY_OPERATION_IDS, ...OPERATION_IDS_OF_OTHER_GROUPS];
// The second round's groups.
const BROADCAST_OPERATION_IDS = ['broadcast.create', 'broadcast.list', 'broadcast.get', 'broadcast.send', 'broadcast.cancel', 'broadcast.delete', 'broadcast.retryFailed'];
const TWO_WAY_OPERATION_IDS = ['suppression.list', 'suppression.create', 'suppression.delete', 'webhook.getEvent', 'webhook.retryEvent', 'webhook.replay', 'sandbox.inbound'];
// The third round's audit log, topics, engagement tracked by Tidings itself, and "Sending, rounded off".
const AUDIT_OPERATION_IDS = ['audit.list'];
const TOPIC_OPERATION_IDS = ['topic.create', 'topic.list', 'topic.get', 'topic.update', 'topic.delete'];
const TRACKING_OPERATION_IDS = ['emailDomain.update', 'broadcast.links'];
const SENDING_ROUNDED_OFF_OPERATION_IDS = ['message.getSource', 'contact.export'];
// The fourth round's one-time codes and the organization's own settings (the SMS fraud guard's countries).
const VERIFY_OPERATION_IDS = [
  'verification.create',
  'verification.check',
  'verification.get',
  'verification.cancel',
  'verification.list',
  'organization.get',
  'organization.update',
];
const ALL_OPERATION_IDS = [
  ...FIRST_ROUND_OPERATION_IDS,
  ...BROADCAST_OPERATION_IDS,
  ...TWO_WAY_OPERATION_IDS,
  ...AUDIT_OPERATION_IDS,
  ...TOPIC_OPERATION_IDS,
  ...TRACKING_OPERATION_IDS,
  ...SENDING_ROUNDED_OFF_OPERATION_IDS,
  ...VERIFY_OPERATION_IDS,
];
// The third round's Resend-compatible doors: documented under their own tag, at the root, not /v1 operations.
const RESEND_COMPATIBLE_OPERATION_IDS = ['resend.emails.send', 'resend.batch.send', 'resend.emails.get', 'resend.emails.update', 'resend.emails.cancel'];
/**
 * The other 44 operations are built on other branches. Set this to true once they are all merged: from then on
 * every one of the 50 must be in the document.
 */
const ALL_GROUPS_MERGED = true;
const REQUIRED_OPERATION_IDS = ALL_GROUPS_MERGED ? ALL_OPERATION_IDS : API_KEY_OPERATION_IDS;

describe('the served OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for @apidevtools/swagger-parser', async () => {
    const doc = await servedDocument();
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('the validator is not a rubber stamp: it refuses a broken copy', async () => {
    const doc = structuredClone(await servedDocument());
    doc.paths['/api-keys'].post.responses['201'].content['application/json'].schema = { $ref: '#/components/schemas/NoSuchSchema' };
    await expect(SwaggerParser.validate(doc)).rejects.toThrow(/NoSuchSchema/);
    const withoutInfo = structuredClone(await servedDocument());
    delete withoutInfo.info;
    await expect(SwaggerParser.validate(withoutInfo)).rejects.toThrow(/info/);
  });

  it('carries the operation ids of API.md, each once, and no others', async () => {
    expect(new Set(FIRST_ROUND_OPERATION_IDS).size).toBe(50);
    expect(new Set(ALL_OPERATION_IDS).size).toBe(ALL_OPERATION_IDS.length);
    const operations = operationsOf(await servedDocument());
    const resendIds = operations.filter(({ op }) => isResendCompatible(op)).map(({ op }) => op.operationId);
    expect(resendIds.sort()).toEqual([...RESEND_COMPATIBLE_OPERATION_IDS].sort());
    for (const { path, op } of operations) expect([op.operationId, urlOf(op, path).startsWith('/v1/')]).toEqual([op.operationId, !isResendCompatible(op)]);
    const ids = operations.filter(({ op }) => !isResendCompatible(op)).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(REQUIRED_OPERATION_IDS));
    for (const id of ids) expect(ALL_OPERATION_IDS).toContain(id);
  });

  it('documents every operation fully: summary, description, bearer auth, errors, and examples for bodies and parameters', async () => {
    const doc = await servedDocument();
    const resolve = (schema: Record<string, unknown>): Record<string, any> =>
      typeof schema.$ref === 'string' ? resolve(doc.components.schemas[schema.$ref.split('/').pop()!]) : schema;
    // an example on the media type or the schema; for a list, on its items
    const hasExample = (media: { schema: Record<string, unknown>; example?: unknown }) => {
      const schema = resolve(media.schema);
      if (media.example !== undefined || schema.example !== undefined || schema.examples !== undefined) return true;
      const items = schema.properties?.data?.items;
      return Boolean(items && resolve(items).example !== undefined);
    };
    const problems: string[] = [];
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${op.operationId} (${method.toUpperCase()} ${path})`;
      if (!op.summary) problems.push(`${where}: no summary`);
      if (!op.description) problems.push(`${where}: no description`);
      if (!op.tags?.length) problems.push(`${where}: no tag`);
      if (!op.security?.some((s) => 'bearerAuth' in s)) problems.push(`${where}: no bearer auth`);
      // 404 only where the path names something, 400 only where there is input to refuse
      const hasPathId = op.parameters?.some((p) => p.in === 'path') ?? false;
      const hasInput = hasPathId || Boolean(op.requestBody) || (op.parameters?.some((p) => p.in === 'query') ?? false);
      const expected = ['401', '403', '429', '500', ...(hasInput ? ['400'] : []), ...(hasPathId ? ['404'] : [])];
      // without an id in its path, body or query an operation has nothing to not find
      const namesAnId = hasPathId || Boolean(op.requestBody) || (op.parameters?.some((p) => p.in === 'query' && /^[a-z]+Id$/.test(p.name)) ?? false);
      if (!namesAnId && op.responses['404']) problems.push(`${where}: documents a 404 it cannot give`);
      for (const status of expected) {
        const media = op.responses[status]?.content?.['application/json'];
        if (!media) problems.push(`${where}: no ${status} response`);
        else if (resolve(media.schema) !== doc.components.schemas[isResendCompatible(op) ? 'ResendError' : 'Error'] || !hasExample(media))
          problems.push(`${where}: ${status} is not the Error shape with an example`);
        else if (isResendCompatible(op) && !contracts.ResendErrorBody.safeParse(media.example).success) problems.push(`${where}: ${status} example is not Resend's error shape`);
      }
      const successes = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      if (successes.length === 0) problems.push(`${where}: no success response`);
      for (const [status, response] of successes) {
        if (!response.description) problems.push(`${where}: ${status} has no description`);
        const media = response.content?.['application/json'];
        if (media && !hasExample(media)) problems.push(`${where}: ${status} body has no example`);
      }
      const body = op.requestBody?.content['application/json'];
      if (body && !hasExample(body)) problems.push(`${where}: request body has no example`);
      if (body && !op.responses['415']) problems.push(`${where}: takes a body but does not document 415`);
      for (const param of op.parameters ?? []) {
        if (param.in === 'path' && param.example === undefined && param.schema?.example === undefined) problems.push(`${where}: path parameter ${param.name} has no example`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('its examples are valid: each parses with its own zod schema, and each success example matches the document', async () => {
    const doc = await servedDocument();
    const problems: string[] = [];
    // request bodies are strict zod objects, so an example field the schema lacks fails here too
    const schemas = contracts as unknown as Record<string, { safeParse?: (v: unknown) => { success: boolean; error?: { message: string } } }>;
    let parsed = 0;
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, { example?: unknown }>)) {
      if (schema.example === undefined || typeof schemas[name]?.safeParse !== 'function') continue;
      const result = schemas[name].safeParse!(schema.example);
      parsed += 1;
      if (!result.success) problems.push(`${name}: ${result.error?.message}`);
    }
    expect(parsed).toBeGreaterThanOrEqual(19);
    // responses: the document's own (closed) schemas, as every test response is checked, so extra fields fail too
    const check = createResponseValidator(doc);
    for (const { path, method, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => s.startsWith('2'))) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const ref = media.schema.$ref as string | undefined;
        const example = media.example ?? (ref ? doc.components.schemas[ref.split('/').pop()!].example : media.schema.example);
        if (example === undefined) continue;
        try {
          check(method, urlOf(op, path.replace(/\{id\}/g, 'x_1')), Number(status), JSON.stringify(example));
        } catch (error) {
          problems.push((error as Error).message);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('what /docs shows', () => {
  it('opens with an introduction to authentication, test and live keys, errors, pagination, idempotency, rate limits and webhooks', async () => {
    const doc = await servedDocument();
    const headings = [...(doc.info.description as string).matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Authentication', 'Test and live keys', 'Errors', 'Pagination', 'Idempotency', 'Rate limits', 'Webhooks']);
    expect(doc.info.description).toContain('Authorization: Bearer sk_test_...');
  });

  it('orders the sidebar Messages first and API keys last, and lists every tag in use', async () => {
    const doc = await servedDocument();
    const order = (doc.tags as { name: string }[]).map((tag) => tag.name);
    expect(order[0]).toBe('Messages');
    expect(order.at(-1)).toBe('API keys');
    const used = new Set(operationsOf(doc).flatMap(({ op }) => op.tags ?? []));
    expect([...used].filter((tag) => !order.includes(tag))).toEqual([]);
  });

  it('shows each operation’s own answers: message.send 202 is queued, message.cancel canceled', async () => {
    const doc = await servedDocument();
    const example = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].example;
    expect(example('/messages', 'post', '202')).toMatchObject({ status: 'queued', sentAt: null, deliveredAt: null });
    expect(example('/messages/batch', 'post', '202').data.every((m: { status: string } | null) => m === null || m.status === 'queued')).toBe(true);
    expect(example('/messages/{id}/cancel', 'post', '200')).toMatchObject({ status: 'canceled' });
  });

  it('documents error examples that are what each operation answers: 404 for an unknown id, 400 for missing input, 403 for a sending key', async () => {
    const doc = await servedDocument();
    // one request per documented error: more than the default rate limit allows in a minute
    const local = setupApi({ RATE_LIMIT_PER_MINUTE: '10000' });
    try {
      const full = await local.org({ mode: 'test' });
      const sending = await local.org({ mode: 'test' });
      const sendingKey = (await local.deps.db.apiKey.findFirstOrThrow({ where: { orgId: sending.orgId } })).id;
      await local.deps.db.apiKey.update({ where: { id: sendingKey }, data: { permission: 'sending' } });
      const resolve = (schema: Record<string, unknown> | undefined): Record<string, any> | undefined =>
        schema && typeof schema.$ref === 'string' ? resolve(doc.components.schemas[schema.$ref.split('/').pop()!]) : schema;
      const call = (api: typeof full.api, method: string, url: string, body?: unknown) =>
        method === 'get'
          ? api.get(url)
          : method === 'delete'
            ? api.delete(url)
            : method === 'patch'
              ? api.patch(url, body ?? {})
              : method === 'put'
                ? api.put(url, body ?? {})
                : api.post(url, body ?? {});

      const problems: string[] = [];
      let checked = 0;
      for (const { path, method, op } of operationsOf(doc)) {
        const where = `${op.operationId} (${method.toUpperCase()} ${path})`;
        const documented = (status: string) => op.responses[status]?.content?.['application/json']?.example as { code: string; message: string } | undefined;
        const bodyMedia = op.requestBody?.content['application/json'];
        const validBody = bodyMedia ? (bodyMedia.example ?? resolve(bodyMedia.schema)?.example) : undefined;
        const query = (op.parameters ?? []).filter((p) => p.in === 'query' && (p as { required?: boolean }).required).map((p) => `${p.name}=US`);
        const url = (id: string) => `${urlOf(op, path.replace(/\{[^}]+\}/g, id))}${query.length ? `?${query.join('&')}` : ''}`;

        const notFound = documented('404');
        if (notFound && path.includes('{')) {
          const res = await call(full.api, method, url('zz_01JD8Z5Q9X4N7W2M3K6P0R1T5V'), validBody);
          checked += 1;
          if (res.status !== 404 || res.body.message !== notFound.message)
            problems.push(`${where}: documents 404 "${notFound.message}", answers ${res.status} "${res.body.message}"`);
        }
        const badRequest = documented('400');
        if (badRequest) {
          const isUnknownField = badRequest.message === 'nickname: unknown field';
          const isUnknownQuery = badRequest.message === 'stauts: unknown query parameter';
          const isLongId = badRequest.message.startsWith('id: ');
          const target = isLongId ? url('x'.repeat(65)) : isUnknownQuery ? `${url('zz_1')}${query.length ? '&' : '?'}stauts=failed` : url('zz_1');
          const res = await call(full.api, method, target, isUnknownField ? { nickname: 1 } : isLongId ? validBody : {});
          checked += 1;
          if (res.status !== 400 || !res.body.message.split('; ').includes(badRequest.message))
            problems.push(`${where}: documents 400 "${badRequest.message}", answers ${res.status} "${res.body.message}"`);
        }
        const forbidden = documented('403');
        if (forbidden?.message.startsWith('This API key has sending permission only')) {
          const res = await call(sending.api, method, url('zz_1'), validBody);
          checked += 1;
          if (res.status !== 403 || res.body.message !== forbidden.message)
            problems.push(`${where}: documents 403 "${forbidden.message}", answers ${res.status} "${res.body.message}"`);
        }
      }
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(80);
    } finally {
      await local.close();
    }
  }, 300_000);
});

describe('/docs', () => {
  it('serves the interactive reference of /v1/openapi.json with its script from this server, not a CDN', async () => {
    const res = await t.app.request('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<script src="/docs/scalar.js"></script>');
    expect(html).toContain('"url": "/v1/openapi.json"');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/cdn\.jsdelivr|unpkg|fonts\.scalar/);
  });

  it('serves the Scalar bundle itself', async () => {
    const res = await t.app.request('/docs/scalar.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain('createApiReference');
  });
});
