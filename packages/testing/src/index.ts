export { createTestDeps, type TestDeps } from './deps.ts';
export { makeOrganization } from './factories.ts';
export { apiClient, type ApiResponse } from './http.ts';
export { testDatabaseUrl } from './test-database.ts';
export { startFakeServer, type FakeServer, type Fault, type RecordedRequest } from './fakes/fake-server.ts';
export { startFakeResend } from './fakes/fake-resend.ts';
export { startFakeTelnyx } from './fakes/fake-telnyx.ts';
export { startFakeDns, type FakeDns, type ZoneRecord } from './fakes/fake-dns.ts';
export { startWebhookReceiver, type WebhookReceiver, type ReceiverReply, type ReceivedRequest } from './webhook-receiver.ts';
