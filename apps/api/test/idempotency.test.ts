import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@tidings/contracts';
import { beginIdempotentRequest, requestFingerprint } from '@tidings/core';
import { route } from '../src/openapi.ts';
import type { AppEnv } from '../src/env.ts';
import { validationHook } from '../src/validation-hook.ts';
import { waitFor } from '@tidings/testing';
import { setupApi } from './setup.ts';

// The middleware is real and so are Postgres and Redis; the operation behind it is a probe that counts its runs,
// because the operations that take Idempotency-Key arrive with their own issues.
// A short lease, so a test can outlive it: a reservation nobody renews is free again after it.
const LEASE_MS = 1500;
const t = setupApi({ IDEMPOTENCY_LEASE_MS: String(LEASE_MS) });
let runs = 0;
let release: (() => void) | undefined;
/** Forgets an earlier probe's release, so a test can wait for its own probe to start. */
const forgetRelease = () => {
  release = undefined;
};
const probe = route({
  operationId: 'probe.create',
  method: 'post',
  path: '/probe',
  summary: 'probe',
  description: 'probe',
  permission: 'full',
  idempotent: true,
  tags: ['Probe'],
  request: { body: { required: true, content: { 'application/json': { schema: z.strictObject({ n: z.number(), wait: z.boolean().optional() }) } } } },
  responses: { 201: { description: 'ok', content: { 'application/json': { schema: z.object({ run: z.number(), n: z.number() }) } } } },
});
const probeRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(probe, async (c) => {
  const body = c.req.valid('json');
  runs += 1;
  const run = runs;
  if (body.wait) await new Promise<void>((resolve) => (release = resolve));
  if (body.n < 0) throw new Error('probe failure');
  return c.json({ run, n: body.n }, 201);
});
// mounted under /v1, so auth and rate limiting run before it as for the real routes
t.app.route('/v1', probeRoutes as never);

afterAll(() => {
  release?.(); // a probe a failed test left waiting
  return t.close();
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, and runs once', async () => {
    const { api } = await t.org();
    const before = runs;
    const first = await api.post('/v1/probe', { n: 1 }, { 'idempotency-key': 'k-1' });
    const second = await api.post('/v1/probe', { n: 1 }, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(1);
  });

  it('409 when the same key comes with a different body', async () => {
    const { api } = await t.org();
    await api.post('/v1/probe', { n: 1 }, { 'idempotency-key': 'k-2' });
    const res = await api.post('/v1/probe', { n: 2 }, { 'idempotency-key': 'k-2' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/different request body/) });
  });

  it('409 while the first request is still in flight', async () => {
    const { api } = await t.org();
    const first = api.post('/v1/probe', { n: 3, wait: true }, { 'idempotency-key': 'k-3' });
    const releaseFirst = await waitFor(() => release, 5000, 'the first request to start');
    const repeat = await api.post('/v1/probe', { n: 3, wait: true }, { 'idempotency-key': 'k-3' });
    expect(repeat.status).toBe(409);
    expect(repeat.body.message).toMatch(/still in progress/);
    releaseFirst();
    expect((await first).status).toBe(201);
  });

  it('keys are per organization', async () => {
    const a = await t.org();
    const b = await t.org();
    const before = runs;
    await a.api.post('/v1/probe', { n: 4 }, { 'idempotency-key': 'shared' });
    const other = await b.api.post('/v1/probe', { n: 4 }, { 'idempotency-key': 'shared' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(2);
  });

  it("keys are per organization and mode: a live request with a test request's key runs, not replays", async () => {
    const { api: live } = await t.org({ mode: 'live' });
    const { body: created } = await live.post('/v1/api-keys', { name: 'test', mode: 'test' });
    expect(created.key).toMatch(/^sk_test_/);
    const test = t.client(created.key);
    const before = runs;
    expect((await test.post('/v1/probe', { n: 6 }, { 'idempotency-key': 'per-mode' })).status).toBe(201);
    const other = await live.post('/v1/probe', { n: 6 }, { 'idempotency-key': 'per-mode' });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(2);
    // each mode still replays its own answer
    expect((await test.post('/v1/probe', { n: 6 }, { 'idempotency-key': 'per-mode' })).headers.get('idempotent-replayed')).toBe('true');
    expect((await live.post('/v1/probe', { n: 6 }, { 'idempotency-key': 'per-mode' })).headers.get('idempotent-replayed')).toBe('true');
    expect(runs - before).toBe(2);
  });

  it('a 500 frees the key so a retry runs again; a 400 is stored and replayed', async () => {
    const { api } = await t.org();
    const failed = await api.post('/v1/probe', { n: -1 }, { 'idempotency-key': 'k-5' });
    expect(failed.status).toBe(500);
    const retried = await api.post('/v1/probe', { n: -1 }, { 'idempotency-key': 'k-5' });
    expect(retried.headers.get('idempotent-replayed')).toBeNull();

    const invalid = await api.post('/v1/probe', { n: 'x' }, { 'idempotency-key': 'k-6' });
    expect(invalid.status).toBe(400);
    const replayed = await api.post('/v1/probe', { n: 'x' }, { 'idempotency-key': 'k-6' });
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(invalid.body);
  });

  it('rejects a key longer than 255 characters', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/probe', { n: 1 }, { 'idempotency-key': 'x'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Idempotency-Key: /);
  });

  it('a reservation left by a request whose process died frees the key within the lease, and the retry runs', async () => {
    const { api, orgId } = await t.org();
    // what a crashed API process leaves behind: the key reserved, nothing done, nobody renewing or releasing it
    const abandonedAt = Date.now();
    const fingerprint = requestFingerprint('POST', '/v1/probe', JSON.stringify({ n: 7 }));
    expect((await beginIdempotentRequest(t.deps, { orgId, mode: 'live', key: 'k-crashed' }, fingerprint)).kind).toBe('first');
    const before = runs;
    expect((await api.post('/v1/probe', { n: 7 }, { 'idempotency-key': 'k-crashed' })).status).toBe(409);

    const notInProgress = async () => {
      const res = await api.post('/v1/probe', { n: 7 }, { 'idempotency-key': 'k-crashed' });
      return res.status === 409 ? null : res;
    };
    const retry = await waitFor(notInProgress, abandonedAt + LEASE_MS + 5000 - Date.now(), 'the abandoned reservation to expire');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(1);
  });

  it('a request running longer than the lease keeps its key: repeats are 409 until it answers, then replay it', async () => {
    const { api, orgId } = await t.org();
    forgetRelease();
    const first = api.post('/v1/probe', { n: 8, wait: true }, { 'idempotency-key': 'k-slow' });
    const releaseFirst = await waitFor(() => release, 5000, 'the first request to start');
    const startedAt = Date.now();
    // wait until the first lease would have run out twice over, with the reservation renewed meanwhile
    const record = () => t.deps.db.idempotencyRecord.findUniqueOrThrow({ where: { orgId_mode_key: { orgId, mode: 'live', key: 'k-slow' } } });
    const renewedPastTwoLeases = async () => Date.now() > startedAt + 2 * LEASE_MS && (await record()).lockedUntil.getTime() > startedAt + 2 * LEASE_MS;
    await waitFor(renewedPastTwoLeases, 2 * LEASE_MS + 5000, 'the reservation renewed past two leases');
    const repeat = await api.post('/v1/probe', { n: 8, wait: true }, { 'idempotency-key': 'k-slow' });
    expect(repeat.status).toBe(409);
    expect(repeat.body.message).toMatch(/still in progress/);

    releaseFirst();
    const answered = await first;
    expect(answered.status).toBe(201);
    const replayed = await api.post('/v1/probe', { n: 8, wait: true }, { 'idempotency-key': 'k-slow' });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(answered.body);
  });
});
