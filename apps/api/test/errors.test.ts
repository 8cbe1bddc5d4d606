import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '@tidings/runtime';
import { SendMessageBody } from '@tidings/contracts';
import { Prisma } from '@tidings/db';
import { Hono } from 'hono';
import type { AppEnv } from '../src/env.ts';
import { handleError } from '../src/middleware/errors.ts';
import { serveHttp } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

describe('error shape', () => {
  it('401 when the Authorization header is missing, malformed or unknown', async () => {
    const missing = await t.anonymous.get('/v1/api-keys');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(/Missing Authorization/) });

    const malformed = await t.anonymous.get('/v1/api-keys', { authorization: 'Basic abc' });
    expect(malformed.status).toBe(401);
    expect(malformed.body.message).toMatch(/Malformed/);

    const unknown = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer sk_live_${'x'.repeat(32)}` });
    expect(unknown.status).toBe(401);
    expect(Object.keys(unknown.body).sort()).toEqual(['code', 'message']);
  });

  it('404 NOT_FOUND in the same shape for an unknown route', async () => {
    const { api } = await t.org();
    const res = await api.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'No route GET /v1/nothing-here' });
  });

  it('405 with code BAD_REQUEST for a wrong method on a known path', async () => {
    const { api } = await t.org();
    const res = await api.put('/v1/api-keys', { name: 'x' });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.headers.get('allow')).toMatch(/GET/);
  });

  it('a trailing slash names the same resource: GET /v1/api-keys/ lists, GET /v1/webhooks/. too', async () => {
    const { api } = await t.org();
    const listed = await api.get('/v1/api-keys/');
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body.data)).toBe(true);
    // a path id of "." normalises to a trailing slash, as the fuzz test found
    const dot = await api.get('/v1/webhooks/.');
    expect(dot.status).toBe(200);
    const unknownId = await api.get('/v1/webhooks/wh_missing/');
    expect(unknownId.status).toBe(404);
    expect(unknownId.body.code).toBe('NOT_FOUND');
  });

  it('a transaction that cannot get a database connection in time is a retryable 500 with Retry-After, not a leak', async () => {
    const app = new Hono<AppEnv>();
    app.get('/busy', () => {
      throw new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', { code: 'P2028', clientVersion: '7' });
    });
    app.onError(handleError);
    const res = await app.request('/busy');
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = await res.json();
    expect(body).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringMatching(/busy.*retry/) });
    expect(body.message).not.toMatch(/Transaction API|P2028/);
  });

  it('415 for a body that is not JSON, and changes nothing', async () => {
    const { api, orgId } = await t.org();
    const res = await api.post('/v1/api-keys', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/Content-Type must be application\/json/) });
    expect(await t.deps.db.apiKey.count({ where: { orgId } })).toBe(1);
  });

  // a client that always sends Content-Type: application/json says "no fields" with an empty body, as `{}` does
  it.each([
    ['no content type', ''],
    ['a JSON content type', 'application/json'],
  ])('an empty body with %s: an optional body is fine, a required one is reported by field', async (_, contentType) => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'for rotation' });
    const rotate = await api.call('POST', `/v1/api-keys/${created.body.id}/rotate`, '', { 'content-type': contentType });
    expect(rotate.status).toBe(200);
    const noBody = await api.call('POST', '/v1/api-keys', '', { 'content-type': contentType });
    expect(noBody.status).toBe(400);
    expect(noBody.body.message).toMatch(/^name: /);
  });

  it('400 for invalid JSON', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/api-keys', '{"name": ', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: 'Request body is not valid JSON' });
  });

  it('a JSON body is parsed once per request, and a send validated once (a large send is not parsed or walked again)', async () => {
    const { api } = await t.org({ mode: 'test' });
    const text = 'x'.repeat(100_000);
    const body = JSON.stringify({ channelType: 'email', to: 'ada@example.com', subject: 'Once', text });
    const parse = jest.spyOn(JSON, 'parse');
    // every way zod validates with the schema: the route's validator and core's own parse of a send
    const validations = (['parse', 'safeParse', 'parseAsync', 'safeParseAsync'] as const).map((method) => jest.spyOn(SendMessageBody, method));
    try {
      const res = await api.post('/v1/messages', body, { 'content-type': 'application/json' });
      expect(res.status).toBe(202);
      expect(parse.mock.calls.filter(([parsed]) => parsed === body)).toHaveLength(1);
      const ofThisSend = validations.flatMap((spy) => spy.mock.calls.filter(([value]) => (value as { text?: string } | undefined)?.text === text));
      expect(ofThisSend).toHaveLength(1);
    } finally {
      parse.mockRestore();
      for (const spy of validations) spy.mockRestore();
    }
  });

  it('400 naming the field for a validation failure and for an unknown field', async () => {
    const { api, orgId } = await t.org();
    const missing = await api.post('/v1/api-keys', { permission: 'full' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/^name: /);

    const typo = await api.post('/v1/api-keys', { name: 'ok', permision: 'full' });
    expect(typo.status).toBe(400);
    expect(typo.body.message).toBe('permision: unknown field');

    const badEnum = await api.post('/v1/api-keys', { name: 'ok', permission: 'admin' });
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.message).toMatch(/^permission: /);
    expect(await t.deps.db.apiKey.count({ where: { orgId } })).toBe(1);
  });

  it('400 naming an unknown query parameter of any list, instead of an unfiltered answer', async () => {
    const { api } = await t.org();
    const typo = await api.get('/v1/messages?stauts=failed');
    expect(typo.status).toBe(400);
    expect(typo.body).toEqual({ code: 'BAD_REQUEST', message: 'stauts: unknown query parameter' });

    // every operation of the document that takes query parameters, so a list added later is held to the same rule
    const document = (await t.anonymous.get('/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>>;
    };
    const withQuery = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method, op]) => method === 'get' && op.parameters?.some((p) => p.in === 'query'))
        .map(([, op]) => {
          const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=US`);
          return `/v1${path.replace(/\{[^}]+\}/g, 'x_1')}?${[...required, 'stauts=failed'].join('&')}`;
        }),
    );
    expect(withQuery.length).toBeGreaterThanOrEqual(10);
    for (const url of withQuery) {
      const res = await api.get(url);
      expect({ url, status: res.status, message: res.body.message }).toEqual({ url, status: 400, message: 'stauts: unknown query parameter' });
    }
  });

  it('400 for limit outside 1..100 and for offset together with cursor', async () => {
    const { api } = await t.org();
    expect((await api.get('/v1/api-keys?limit=0')).status).toBe(400);
    expect((await api.get('/v1/api-keys?limit=101')).body.message).toMatch(/^limit: /);
    const both = await api.get('/v1/api-keys?offset=1&cursor=abc');
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/offset and cursor/);
    const badCursor = await api.get('/v1/api-keys?cursor=not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.message).toMatch(/^cursor: /);
  });

  it('413 for a body over the limit', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/api-keys', { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('over real HTTP: 413 for a declared or a streamed (chunked) body over the limit, nothing created; a small streamed body works', async () => {
    const { key, orgId } = await t.org();
    const server = await serveHttp(t.app.fetch);
    try {
      const post = (body: BodyInit) =>
        fetch(`${server.url}/v1/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
          duplex: 'half',
        } as RequestInit);
      const chunked = (text: string) =>
        new ReadableStream({
          start(controller) {
            for (let i = 0; i < text.length; i += 64 * 1024) controller.enqueue(new TextEncoder().encode(text.slice(i, i + 64 * 1024)));
            controller.close();
          },
        });
      const huge = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      const declared = await post(huge);
      expect(declared.status).toBe(413);
      expect(await declared.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/larger than/) });
      expect((await post(chunked(huge))).status).toBe(413);
      expect(await t.deps.db.apiKey.count({ where: { orgId, name: { startsWith: 'xxx' } } })).toBe(0);
      const small = await post(chunked(JSON.stringify({ name: 'streamed' })));
      expect(small.status).toBe(201);
    } finally {
      await server.close();
    }
  });

  it('500 hides internals from the caller and logs them with the request id', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const local = setupApi();
    local.deps.logger = logger;
    local.app.get('/explode', () => {
      throw new Error('relation "secret_table" does not exist');
    });
    const res = await local.app.request('/explode', { headers: { 'x-request-id': 'req-500-test' } });
    const body = await res.json();
    expect(res.status).toBe(500);
    expect(body.code).toBe('INTERNAL_SERVER_ERROR');
    expect(body.message).not.toMatch(/secret_table/);
    expect(body.message).toMatch(/req-500-test/);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged.requestId).toBe('req-500-test');
    expect(logged.err.message).toMatch(/secret_table/);
    await local.close();
  });

  it('logs the error code of every 4xx on its request line, with an ISO-8601 time', async () => {
    const lines: string[] = [];
    const local = setupApi();
    local.deps.logger = createLogger(
      { level: 'info', name: 'api' },
      new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const { key } = await local.org();
    const headers = { authorization: `Bearer ${key}` };
    await local.app.request('/v1/messages?stauts=failed', { headers: { ...headers, 'x-request-id': 'req-400' } });
    await local.app.request('/v1/messages/msg_nothing', { headers: { ...headers, 'x-request-id': 'req-404' } });
    await local.app.request('/v1/messages', { headers: { 'x-request-id': 'req-401' } });
    await local.app.request('/v1/messages', { headers: { ...headers, 'x-request-id': 'req-200' } });
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    const byId = Object.fromEntries(requests.map((l) => [l.requestId, l]));
    expect(byId['req-400']).toMatchObject({ status: 400, errorCode: 'BAD_REQUEST' });
    expect(byId['req-404']).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
    expect(byId['req-401']).toMatchObject({ status: 401, errorCode: 'UNAUTHORIZED' });
    expect(byId['req-200'].status).toBe(200);
    expect(byId['req-200']).not.toHaveProperty('errorCode');
    for (const line of requests) expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await local.close();
  });

  it('echoes X-Request-Id, or makes one', async () => {
    const { api } = await t.org();
    const echoed = await api.get('/v1/api-keys', { 'x-request-id': 'abc-123' });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await api.get('/v1/api-keys');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const onError = await api.get('/v1/nope');
    expect(onError.headers.get('x-request-id')).toBeTruthy();
  });
});
