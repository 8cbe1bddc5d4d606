import { createFakeRateLimit, startFakeSes, type FakeSes } from '@tidings/testing';
import type { OutgoingEmail } from '../src/provider.types.ts';
import { createSesProvider, SES_MESSAGE_TAG } from '../src/ses.provider.ts';
import { providerFailureOf, TEST_TIMEOUT_MS, verdictOf } from './provider-failure.ts';

// The SES adapter through the official `@aws-sdk/client-sesv2` (signed requests, its retries off) against the
// loopback fake: what it sends, and how each kind of answer becomes a ProviderError the worker can act on.
let fake: FakeSes;
beforeAll(async () => {
  fake = await startFakeSes();
});
afterEach(() => {
  fake.reset();
  fake.state.emails.length = 0;
  // a fresh bucket: one a test emptied would still be empty in the next
  fake.state.limit = createFakeRateLimit();
});
afterAll(() => fake.close());

const provider = () =>
  createSesProvider({ region: 'us-east-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', endpoint: fake.url, configurationSet: 'tidings', timeoutMs: TEST_TIMEOUT_MS });
const email = (overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  from: 'hello@example.com',
  to: ['ada@example.com', 'grace@example.com'],
  subject: 'Hi',
  text: 'Hello',
  html: '<p>Hello</p>',
  ...overrides,
});

describe('SES adapter', () => {
  it('sends a signed SendEmail with our message id as a tag and the configuration set, and returns the MessageId', async () => {
    const sent = email();
    const accepted = await provider().sendEmail(sent);
    expect(fake.state.emails).toHaveLength(1);
    const stored = fake.state.emails[0];
    expect(accepted.providerMessageId).toBe(stored.id);
    expect(stored).toMatchObject({ to: ['ada@example.com', 'grace@example.com'], subject: 'Hi', text: 'Hello', html: '<p>Hello</p>', configurationSet: 'tidings' });
    expect(stored.tags).toEqual({ [SES_MESSAGE_TAG]: sent.messageId });
  });

  it("reads the account's MaxSendRate", async () => {
    fake.state.limit.ratePerSecond = 7;
    await expect(provider().maxSendRate!()).resolves.toBe(7);
  });

  it('a refusal (MessageRejected) is permanent', async () => {
    const error = await providerFailureOf(provider().sendEmail(email({ to: 'rejected@example.com' })));
    expect({ verdict: verdictOf(error), status: error.status, reason: error.reason }).toEqual({ verdict: 'refused', status: 400, reason: 'provider_rejected' });
  });

  it('a throttle past MaxSendRate (TooManyRequestsException) is a deferral, not a failure', async () => {
    fake.state.limit.ratePerSecond = 1;
    const ses = provider();
    await ses.sendEmail(email());
    const error = await providerFailureOf(ses.sendEmail(email()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'deferred', status: 429 });
    expect(fake.state.throttled).toBe(1);
  });

  it("the query API's Throttling error, whatever its status, is a deferral too", async () => {
    fake.failNext(1, { kind: 'status', status: 400, body: { message: 'Rate exceeded' }, headers: { 'x-amzn-errortype': 'ThrottlingException' } });
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect(verdictOf(error)).toBe('deferred');
  });

  it('an outage (5xx) is retryable', async () => {
    fake.failNext(1, { kind: 'status', status: 503, body: { message: 'Service unavailable' }, headers: { 'x-amzn-errortype': 'ServiceUnavailableException' } });
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'retryable', status: 503 });
  });

  it('no answer within the timeout is retryable', async () => {
    fake.failNext(1, { kind: 'hang' });
    const started = Date.now();
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'retryable', reason: 'provider_timeout' });
    expect(Date.now() - started).toBeLessThan(TEST_TIMEOUT_MS * 10);
  });

  it.each([
    ['a 200 without a MessageId', { kind: 'status', status: 200, body: {} }],
    ['a 200 that is not JSON', { kind: 'text', status: 200, body: '<html>OK</html>' }],
    ['a 502 page from a gateway', { kind: 'text', status: 502, body: '<html>502 Bad Gateway</html>' }],
  ] as const)('a malformed answer (%s) is a retryable ProviderError', async (_name, fault) => {
    fake.failNext(1, fault);
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect(verdictOf(error)).toBe('retryable');
  });
});
