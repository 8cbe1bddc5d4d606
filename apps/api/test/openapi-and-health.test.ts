import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1, needs no key, and lists the six apiKey operations with their error responses', async () => {
    const res = await t.anonymous.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const operations = Object.values(res.body.paths as Record<string, Record<string, { operationId: string; responses: object }>>).flatMap((p) => Object.values(p));
    const ids = operations.map((o) => o.operationId).sort();
    expect(ids).toEqual(expect.arrayContaining(['apiKey.create', 'apiKey.delete', 'apiKey.disable', 'apiKey.enable', 'apiKey.list', 'apiKey.rotate']));
    expect(ids).toEqual(expect.arrayContaining(['message.send', 'message.sendBatch', 'message.list', 'message.get', 'message.cancel']));
    for (const op of operations) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '429', '500']));
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(res.body.components.schemas.Error.required).toEqual(['code', 'message']);
  });
});

describe('health', () => {
  it('/healthz answers without a key', async () => {
    const res = await t.anonymous.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz checks Postgres and Redis', async () => {
    const res = await t.anonymous.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('/readyz is 503 when Redis is unreachable', async () => {
    const broken = setupApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    broken.deps.redis.on('error', () => {}); // expected: nothing listens there
    const res = await broken.anonymous.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'unreachable' });
    broken.deps.redis.disconnect();
    await broken.deps.db.$disconnect();
  });
});
