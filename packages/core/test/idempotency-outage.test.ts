import { createTestDeps, makeOrganization, startTcpProxy, testDatabaseUrl, type TcpProxy, type TestDeps } from '@tidings/testing';
import { beginIdempotentRequest, completeIdempotentRequest, releaseIdempotentRequest } from '../src/index.ts';

// Postgres through a proxy this test cuts: the response of a request whose work is committed must still be stored,
// or the caller's retry would take the key over and do the work twice.
let proxy: TcpProxy;
let deps: TestDeps;
beforeAll(async () => {
  const direct = new URL(process.env.TEST_DATABASE_URL ?? testDatabaseUrl().url);
  proxy = await startTcpProxy(Number(direct.port || 5432), direct.hostname);
  direct.hostname = proxy.host;
  direct.port = String(proxy.port);
  deps = createTestDeps({ DATABASE_URL: direct.toString() });
});
afterAll(async () => {
  await deps.close();
  await proxy.close();
});

it('stores the response of a finished request through a passing database outage, and repeats replay it', async () => {
  const { orgId } = await makeOrganization(deps);
  expect((await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k1' }, 'hash')).kind).toBe('first');
  proxy.cut();
  const storing = completeIdempotentRequest(deps, { orgId, mode: 'live', key: 'k1' }, 202, '{"id":"msg_1"}');
  setTimeout(() => proxy.restore(), 1000);
  await storing;
  expect(await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k1' }, 'hash')).toEqual({ kind: 'replay', status: 202, body: '{"id":"msg_1"}' });
});

it('frees the key of a failed request through a passing database outage, so the retry runs at once', async () => {
  const { orgId } = await makeOrganization(deps);
  const first = await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k2' }, 'hash');
  if (first.kind !== 'first') throw new Error('expected the key to be free');
  proxy.cut();
  const releasing = releaseIdempotentRequest(deps, { orgId, mode: 'live', key: 'k2' }, first.reservedAt);
  setTimeout(() => proxy.restore(), 1000);
  await releasing;
  expect((await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k2' }, 'hash')).kind).toBe('first');
});

it('frees its own reservation when the reply to it is lost, so the retry is not refused as in progress', async () => {
  const { orgId } = await makeOrganization(deps);
  const at = new Date();
  const now = deps.now;
  deps.now = () => at;
  try {
    // as if this request's INSERT committed and the connection dropped before its reply arrived
    await deps.db.idempotencyRecord.create({
      data: { orgId, key: 'k3', requestHash: 'hash', lockedUntil: new Date(at.getTime() + 60_000), expiresAt: new Date(at.getTime() + 86_400_000), createdAt: at },
    });
    proxy.cut();
    const reserving = beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k3' }, 'hash');
    setTimeout(() => proxy.restore(), 1000);
    await expect(reserving).rejects.toThrow();
  } finally {
    deps.now = now;
  }
  expect((await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k3' }, 'hash')).kind).toBe('first');
});

it('frees only its own reservation: a key another request has taken over since stays reserved', async () => {
  const { orgId } = await makeOrganization(deps);
  const first = await beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k4' }, 'hash');
  if (first.kind !== 'first') throw new Error('expected the key to be free');
  await releaseIdempotentRequest(deps, { orgId, mode: 'live', key: 'k4' }, new Date(first.reservedAt.getTime() - 1));
  await expect(beginIdempotentRequest(deps, { orgId, mode: 'live', key: 'k4' }, 'hash')).rejects.toThrow(/still in progress/);
});
