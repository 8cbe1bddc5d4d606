import { closeDb } from '@tidings/db';
import { startOpsServer, type RunningServer } from '@tidings/runtime';
import { sampleValue } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi();
// what the API process serves on API_METRICS_PORT (server.ts): the ops routes over the API's own deps
let ops: RunningServer;
beforeAll(async () => {
  ops = await startOpsServer(t.deps, 0);
});
afterAll(async () => {
  await ops.close();
  await t.close();
});

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1, needs no key, and lists the six apiKey operations with their error responses', async () => {
    const res = await t.anonymous.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const operations = Object.values(res.body.paths as Record<string, Record<string, { operationId: string; responses: object; parameters?: { in: string }[] }>>).flatMap((p) =>
      Object.values(p),
    );
    const ids = operations.map((o) => o.operationId).sort();
    expect(ids.filter((id) => id.startsWith('apiKey.'))).toEqual(['apiKey.create', 'apiKey.delete', 'apiKey.disable', 'apiKey.enable', 'apiKey.list', 'apiKey.rotate']);
    // every operation documents the errors it can give: 404 only where its path names a key
    for (const op of operations) {
      const named = op.parameters?.some((p) => p.in === 'path') ? ['404'] : [];
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500', ...named]));
    }
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

  it('/metrics is not served on the public port: 404, while /healthz and /readyz are', async () => {
    const res = await t.anonymous.get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it("/metrics on the ops port exposes the API's request, queue and outbox metrics for Prometheus", async () => {
    await t.anonymous.get('/healthz');
    const res = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(text).toMatch(/tidings_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toMatch(/tidings_queue_jobs\{queue="email",state="waiting"\} \d+/);
    expect(text).toMatch(/tidings_outbox_backlog \d+/);
  });

  it('/readyz is 503 when Redis is unreachable', async () => {
    const broken = setupApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    const res = await broken.anonymous.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'unreachable' });
    broken.deps.redis.disconnect();
    await broken.deps.keyChanges.close(); // its subscriber would otherwise try to reconnect forever
    await closeDb(broken.deps.db);
  });

  it('/metrics still answers while Redis is unreachable: the outbox backlog is there, the queue gauges are left out', async () => {
    const broken = setupApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    const brokenOps = await startOpsServer(broken.deps, 0);
    const startedAt = Date.now();
    const res = await fetch(`http://127.0.0.1:${brokenOps.port}/metrics`);
    const text = await res.text();
    await brokenOps.close();
    expect(res.status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(5000); // the 2 s look-up limit, not Redis's reconnect loop
    expect(sampleValue(text, 'tidings_outbox_backlog')).toEqual(expect.any(Number));
    expect(text).not.toMatch(/^tidings_queue_jobs\{/m);
    broken.deps.redis.disconnect();
    await broken.deps.keyChanges.close(); // its subscriber would otherwise try to reconnect forever
    await closeDb(broken.deps.db);
  });
});
