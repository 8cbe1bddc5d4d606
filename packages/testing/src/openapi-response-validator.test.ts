import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { apiClient } from './http.ts';
import { createResponseValidator } from './openapi-response-validator.ts';

const doc = {
  openapi: '3.1.0',
  servers: [{ url: '/v1' }],
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' }, note: { type: ['string', 'null'] } },
        required: ['id', 'at', 'note'],
      },
      ThingWithSecret: { allOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'object', properties: { secret: { type: 'string' } }, required: ['secret'] }] },
    },
  },
  paths: {
    '/things/{id}': {
      get: { operationId: 'thing.get', responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } } },
      delete: { operationId: 'thing.delete', responses: { 204: { description: 'gone' } } },
    },
    '/things/special': {
      post: { operationId: 'thing.special', responses: { 201: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingWithSecret' } } } } } },
    },
  },
};
const thing = { id: 't_1', at: '2026-11-23T08:00:00.000Z', note: null };

describe('createResponseValidator', () => {
  const check = createResponseValidator(doc);

  it('accepts a body that matches, including a nullable field and an allOf of objects', () => {
    expect(() => check('GET', '/v1/things/t_1?x=1', 200, JSON.stringify(thing))).not.toThrow();
    expect(() => check('POST', '/v1/things/special', 201, JSON.stringify({ ...thing, secret: 's' }))).not.toThrow();
    expect(() => check('DELETE', '/v1/things/t_1', 204, '')).not.toThrow();
  });

  it('rejects a wrong type, a missing field, a bad format and a field the document does not declare', () => {
    expect(() => check('GET', '/v1/things/t_1', 200, JSON.stringify({ ...thing, id: 1 }))).toThrow(/thing.get 200 .*\n.*\/id must be string/);
    expect(() => check('GET', '/v1/things/t_1', 200, JSON.stringify({ id: 't', at: thing.at }))).toThrow(/must have required property 'note'/);
    expect(() => check('GET', '/v1/things/t_1', 200, JSON.stringify({ ...thing, at: 'yesterday' }))).toThrow(/\/at must match format "date-time"/);
    expect(() => check('GET', '/v1/things/t_1', 200, JSON.stringify({ ...thing, extra: 1 }))).toThrow(/must NOT have additional properties \(extra\)/);
    expect(() => check('POST', '/v1/things/special', 201, JSON.stringify({ ...thing, secret: 's', leaked: 'x' }))).toThrow(/\(leaked\)/);
  });

  it('rejects an undocumented status and a body where the document has none', () => {
    expect(() => check('GET', '/v1/things/t_1', 418, '{}')).toThrow(/answered 418, a status the document does not list/);
    expect(() => check('DELETE', '/v1/things/t_1', 204, '{"id":"t_1"}')).toThrow(/with a body/);
  });

  it('matches a static path before a template, and leaves paths and methods outside the document alone', () => {
    expect(() => check('POST', '/v1/things/special', 201, JSON.stringify(thing))).toThrow(/thing.special/);
    expect(() => check('GET', '/healthz', 200, 'anything')).not.toThrow();
    expect(() => check('PUT', '/v1/things/t_1', 405, 'anything')).not.toThrow();
  });
});

describe('apiClient checks every answer against the document the app serves', () => {
  it('fails the call when the code answers something its document does not say', async () => {
    const app = new OpenAPIHono();
    const Thing = z.object({ id: z.string() }).openapi('Thing');
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/things/{id}',
        request: { params: z.object({ id: z.string() }) },
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: Thing } } } },
      }),
      // drifted: the code returns a field the document does not have
      (c) => c.json({ id: c.req.valid('param').id, drifted: true } as never, 200),
    );
    app.doc31('/v1/openapi.json', { openapi: '3.1.0', info: { title: 't', version: '1' } });
    await expect(apiClient(app).get('/v1/things/a')).rejects.toThrow(/OpenAPI mismatch: GET \/v1\/things\/\{id\} .*\n.*\(drifted\)/);
  });

  it('does not check an app that serves no document', async () => {
    const app = new OpenAPIHono();
    app.get('/v1/anything', (c) => c.json({ free: 'form' }));
    await expect(apiClient(app).get('/v1/anything')).resolves.toMatchObject({ status: 200, body: { free: 'form' } });
  });
});
