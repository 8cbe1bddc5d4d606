export { createTestDeps, type TestDeps } from './deps.ts';
export { makeOrganization } from './factories.ts';
export { apiClient, type ApiResponse } from './http.ts';
export { serveHttp, type RunningServer } from './http-server.ts';
export { startFaultProxy, type FaultProxy, type ProxyFault, type ProxiedRequest } from './fault-proxy.ts';
export { testDatabaseUrl } from './test-database.ts';
export { startFakeServer, type FakeServer, type Fault, type RecordedRequest } from './fakes/fake-server.ts';
export { startFakeResend } from './fakes/fake-resend.ts';
export { startFakeTelnyx } from './fakes/fake-telnyx.ts';
