import { createFakeRateLimit, startFakeTelnyx, type FakeTelnyx } from '@tidings/testing';
import { createTelnyxProvider, RECIPIENT_STOPPED } from '../src/telnyx.provider.ts';
import type { OutgoingSms } from '../src/provider.types.ts';
import { providerFailureOf, TEST_TIMEOUT_MS, verdictOf } from './provider-failure.ts';

// The Telnyx adapter through the official `telnyx` SDK (its retries off) against the loopback fake: what it sends,
// and how each kind of answer becomes a ProviderError the worker can act on.
let fake: FakeTelnyx;
beforeAll(async () => {
  fake = await startFakeTelnyx();
});
afterEach(() => {
  fake.reset();
  fake.state.messages.length = 0;
  fake.state.stoppedNumbers.clear();
  // a fresh bucket: one a test emptied would still be empty in the next
  fake.state.perSenderLimit = createFakeRateLimit();
});
afterAll(() => fake.close());

const provider = () => createTelnyxProvider({ apiKey: 'KEY_TEST', baseUrl: `${fake.url}/v2`, timeoutMs: TEST_TIMEOUT_MS });
const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  from: '+14155550100',
  to: '+14155550123',
  body: 'Your code is 123456',
  ...overrides,
});

describe('Telnyx adapter', () => {
  it("sends the SMS (an MMS with media) and returns Telnyx's id", async () => {
    const accepted = await provider().sendSms(sms({ mediaUrls: ['https://example.com/a.png'] }));
    expect(fake.state.messages).toHaveLength(1);
    expect(fake.state.messages[0]).toMatchObject({ id: accepted.providerMessageId, from: '+14155550100', to: '+14155550123', mediaUrls: ['https://example.com/a.png'] });
    expect(fake.requests[0].headers.authorization).toBe('Bearer KEY_TEST');
  });

  it('a refusal (422) is permanent', async () => {
    const error = await providerFailureOf(provider().sendSms(sms({ mediaUrls: ['http://example.com/a.png'] })));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'refused', status: 422 });
  });

  it('a recipient who texted STOP is refused with its own reason', async () => {
    fake.state.stoppedNumbers.add('+14155550123');
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'refused', reason: RECIPIENT_STOPPED });
  });

  it("a 429 past the sending number's limit is a deferral for as long as retry-after says, not a failure", async () => {
    fake.state.perSenderLimit.ratePerSecond = 1;
    await provider().sendSms(sms());
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), status: error.status, retryAfterMs: error.retryAfterMs }).toEqual({ verdict: 'deferred', status: 429, retryAfterMs: 1000 });
    expect(fake.state.rateLimited).toBe(1);
  });

  it('an outage (5xx) is retryable', async () => {
    fake.failNext(1, { kind: 'status', status: 503, body: { errors: [{ code: '10001', title: 'Service unavailable' }] } });
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'retryable', status: 503 });
  });

  it('no answer within the timeout is retryable', async () => {
    fake.failNext(1, { kind: 'hang' });
    const started = Date.now();
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'retryable', reason: 'provider_timeout' });
    expect(Date.now() - started).toBeLessThan(TEST_TIMEOUT_MS * 10);
  });

  it.each([
    ['a 200 without an id', { kind: 'status', status: 200, body: { data: { record_type: 'message' } } }],
    ['a 200 that is not JSON', { kind: 'text', status: 200, body: '<html>OK</html>' }],
    ['a 200 whose JSON is cut off', { kind: 'text', status: 200, body: '{"data": {"id": "4', contentType: 'application/json' }],
    ['a 502 page from a gateway', { kind: 'text', status: 502, body: '<html>502 Bad Gateway</html>' }],
  ] as const)('a malformed answer (%s) is a retryable ProviderError', async (_name, fault) => {
    fake.failNext(1, fault);
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect(verdictOf(error)).toBe('retryable');
  });
});
