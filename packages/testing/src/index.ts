export { createTestDeps, type TestDeps } from './deps.ts';
export { makeOrganization } from './factories.ts';
export { apiClient, type ApiResponse } from './http.ts';
export { testDatabaseUrl } from './test-database.ts';
export { startFakeServer, type FakeServer, type Fault, type RecordedRequest } from './fakes/fake-server.ts';
export { startFakeResend, type FakeResend } from './fakes/fake-resend.ts';
export { startFakeTelnyx, type FakeTelnyx } from './fakes/fake-telnyx.ts';
export { signResendCallback, makeTelnyxKeyPair, signTelnyxCallback } from './fakes/provider-callbacks.ts';
