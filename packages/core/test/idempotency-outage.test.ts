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
  expect(await beginIdempotentRequest(deps, orgId, 'k1', 'hash')).toEqual({ kind: 'first' });
  proxy.cut();
  const storing = completeIdempotentRequest(deps, orgId, 'k1', 202, '{"id":"msg_1"}');
  setTimeout(() => proxy.restore(), 1000);
  await storing;
  expect(await beginIdempotentRequest(deps, orgId, 'k1', 'hash')).toEqual({ kind: 'replay', status: 202, body: '{"id":"msg_1"}' });
});

it('frees the key of a failed request through a passing database outage, so the retry runs at once', async () => {
  const { orgId } = await makeOrganization(deps);
  expect(await beginIdempotentRequest(deps, orgId, 'k2', 'hash')).toEqual({ kind: 'first' });
  proxy.cut();
  const releasing = releaseIdempotentRequest(deps, orgId, 'k2');
  setTimeout(() => proxy.restore(), 1000);
  await releasing;
  expect(await beginIdempotentRequest(deps, orgId, 'k2', 'hash')).toEqual({ kind: 'first' });
});
