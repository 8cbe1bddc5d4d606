import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@tidings/contracts';
import { responseValidatorFor, serveHttp, startFaultProxy, type FaultProxy } from '@tidings/testing';
import { route } from '../../../apps/api/src/openapi.ts';
import { validationHook } from '../../../apps/api/src/validation-hook.ts';
import { Tidings, TidingsError } from '../src/index.ts';
import { recordingFetch, startApi } from './setup.ts';

// A 2-request limit over a 2-second window: a real 429 from the real Redis limiter, with a Retry-After short enough
// to actually wait for.
let api: Awaited<ReturnType<typeof startApi>>;
let proxy: FaultProxy;
let probeRuns = 0;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_WINDOW_MS: '2000' });
  // The operations that take Idempotency-Key arrive with their own issues; this probe stands in for them behind the
  // real idempotency middleware, auth and rate limit, and counts how often it really runs.
  const probe = route({
    operationId: 'probe.create',
    method: 'post',
    path: '/probe',
    summary: 'probe',
    description: 'probe',
    permission: 'full',
    idempotent: true,
    tags: ['Probe'],
    request: { body: { required: true, content: { 'application/json': { schema: z.strictObject({ n: z.number() }) } } } },
    responses: { 201: { description: 'ok', content: { 'application/json': { schema: z.object({ run: z.number() }) } } } },
  });
  api.app.route(
    '/v1',
    new OpenAPIHono({ defaultHook: validationHook }).openapi(probe, async (c) => {
      probeRuns += 1;
      return c.json({ run: probeRuns }, 201);
    }) as never,
  );
  // the response checker is built from the OpenAPI document at its first use (about a second on a loaded machine):
  // built now, so that it is not spent between the requests that must fit in one 2-second window
  await responseValidatorFor(api.app);
  proxy = await startFaultProxy(api.server.url);
});
afterAll(async () => {
  await proxy.close();
  await api.close();
});

/** Sleeps for real, and remembers each wait. */
function observedSleep() {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        waits.push(ms);
        setTimeout(resolve, ms);
      }),
  };
}

const instantSleep = () => {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
};

describe('retries', () => {
  it('waits out a real 429 for its Retry-After, then succeeds; the refused request did not run', async () => {
    const wire = recordingFetch();
    const timer = observedSleep();
    const { tidings, orgId } = await api.org({ fetch: wire.fetch, sleep: timer.sleep });
    await tidings.apiKeys.list().page();
    await tidings.apiKeys.list().page();
    const started = Date.now();
    const created = await tidings.apiKeys.create({ name: 'after the limit' });
    const elapsed = Date.now() - started;

    expect(wire.exchanges.map((e) => e.status)).toEqual([200, 200, 429, 201]);
    const retryAfter = Number(wire.exchanges[2].responseHeaders.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(timer.waits).toEqual([retryAfter * 1000]);
    expect(elapsed).toBeGreaterThanOrEqual(retryAfter * 1000);
    expect(created.name).toBe('after the limit');
    expect(await api.deps.db.apiKey.count({ where: { orgId, name: 'after the limit' } })).toBe(1);
  });

  it('with retries off a 429 is a TidingsError carrying Retry-After', async () => {
    const { tidings } = await api.org({ maxRetries: 0 });
    await tidings.apiKeys.list().page();
    await tidings.apiKeys.list().page();
    const error = (await tidings.apiKeys
      .list()
      .page()
      .catch((e: unknown) => e)) as TidingsError;
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
  });

  it('does not wait when Retry-After is longer than maxRetryAfterMs', async () => {
    const timer = instantSleep();
    const { tidings } = await api.org({ sleep: timer.sleep, retry: { maxRetryAfterMs: 500 } });
    await tidings.apiKeys.list().page();
    await tidings.apiKeys.list().page();
    await expect(tidings.apiKeys.list().page()).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(timer.waits).toEqual([]);
  });
});

describe('retries through a proxy that answers 503', () => {
  const viaProxy = async (options: ConstructorParameters<typeof Tidings>[0] = {}) => {
    const org = await api.org();
    const timer = instantSleep();
    return { ...org, timer, tidings: new Tidings({ apiKey: org.key, baseUrl: `${proxy.url}/v1`, sleep: timer.sleep, ...options }) };
  };

  it('retries a create refused with 503 before it reached the API: one key, no duplicate', async () => {
    const { tidings, orgId, timer } = await viaProxy();
    proxy.requests.length = 0;
    proxy.failNext(1, { status: 503, when: 'before-forwarding' });
    const created = await tidings.apiKeys.create({ name: 'once' });
    expect(created.name).toBe('once');
    expect(proxy.requests.map((r) => r.forwarded)).toEqual([false, true]);
    expect(timer.waits).toHaveLength(1);
    expect(timer.waits[0]).toBeGreaterThanOrEqual(250);
    expect(timer.waits[0]).toBeLessThanOrEqual(500);
    expect(await api.deps.db.apiKey.count({ where: { orgId, name: 'once' } })).toBe(1);
  });

  it('an idempotency-keyed call whose answer was lost (503 after it ran) is retried with the same key and runs once', async () => {
    const { tidings } = await viaProxy();
    proxy.requests.length = 0;
    proxy.failNext(1, { status: 503, when: 'after-forwarding' });
    const runsBefore = probeRuns;
    const result = await tidings.request<{ run: number }>({ method: 'POST', path: '/probe', body: { n: 1 }, acceptsIdempotencyKey: true });
    expect(probeRuns - runsBefore).toBe(1);
    expect(result.run).toBe(probeRuns);
    expect(proxy.requests).toHaveLength(2);
    const [first, second] = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
  });

  it('uses the caller’s idempotencyKey as given, on any call', async () => {
    const { tidings } = await viaProxy();
    proxy.requests.length = 0;
    await tidings.request({ method: 'POST', path: '/probe', body: { n: 2 }, acceptsIdempotencyKey: true }, { idempotencyKey: 'order-42' });
    await tidings.apiKeys.list({}, { idempotencyKey: 'generic-1' }).page();
    await (await viaProxy()).tidings.apiKeys.list().page(); // another key: this one has used its 2 requests
    expect(proxy.requests.map((r) => r.headers['idempotency-key'])).toEqual(['order-42', 'generic-1', undefined]);
  });

  it('gives up after maxRetries with the status’s code', async () => {
    const { tidings, timer } = await viaProxy({ maxRetries: 2 });
    proxy.requests.length = 0;
    proxy.failNext(3, { status: 503, when: 'before-forwarding' });
    const error = (await tidings.apiKeys
      .list()
      .page()
      .catch((e: unknown) => e)) as TidingsError;
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(proxy.requests).toHaveLength(3);
    // exponential: the second wait's range (500..1000) lies above the first's (250..500)
    expect(timer.waits).toHaveLength(2);
    expect(timer.waits[1]).toBeGreaterThanOrEqual(timer.waits[0]);
  });
});

describe('network errors', () => {
  it('retries a GET when nothing answers, but never repeats a POST that has no idempotency key', async () => {
    const closed = await serveHttp(() => new Response('unused'));
    await closed.close(); // the port is now refused
    const wire = { attempts: 0 };
    const counting: typeof fetch = (input, init) => {
      wire.attempts += 1;
      return fetch(input, init);
    };
    const timer = instantSleep();
    const tidings = new Tidings({ apiKey: 'sk_live_x', baseUrl: `${closed.url}/v1`, fetch: counting, sleep: timer.sleep, maxRetries: 3 });

    await expect(tidings.apiKeys.list().page()).rejects.toMatchObject({ code: 'CONNECTION_ERROR', status: 0 });
    expect(wire.attempts).toBe(4);
    wire.attempts = 0;
    await expect(tidings.apiKeys.create({ name: 'x' })).rejects.toMatchObject({ code: 'CONNECTION_ERROR' });
    expect(wire.attempts).toBe(1);
    wire.attempts = 0;
    await expect(tidings.request({ method: 'POST', path: '/probe', body: { n: 1 }, acceptsIdempotencyKey: true })).rejects.toMatchObject({ code: 'CONNECTION_ERROR' });
    expect(wire.attempts).toBe(4);
  });

  it('a caller’s abort during a request ends it with the caller’s reason, not retried', async () => {
    const hanging = await serveHttp(() => new Promise<Response>(() => {}));
    const wire = { attempts: 0 };
    const tidings = new Tidings({
      apiKey: 'sk_live_x',
      baseUrl: `${hanging.url}/v1`,
      fetch: (input, init) => {
        wire.attempts += 1;
        return fetch(input, init);
      },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('navigated away')), 50);
    await expect(tidings.apiKeys.list({}, { signal: controller.signal }).page()).rejects.toThrow('navigated away');
    expect(wire.attempts).toBe(1);
    await hanging.close();
  });

  it('times out an attempt that gets no answer', async () => {
    const hanging = await serveHttp(() => new Promise<Response>(() => {}));
    const tidings = new Tidings({ apiKey: 'sk_live_x', baseUrl: `${hanging.url}/v1`, timeoutMs: 150, maxRetries: 0 });
    await expect(tidings.apiKeys.list().page()).rejects.toMatchObject({ code: 'TIMEOUT', status: 0 });
    await hanging.close();
  });
});
