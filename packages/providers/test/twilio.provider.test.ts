import { startFakeTwilio, type FakeTwilio } from '@tidings/testing';
import { RECIPIENT_STOPPED } from '../src/telnyx.provider.ts';
import type { OutgoingSms } from '../src/provider.types.ts';
import { createTwilioProvider } from '../src/twilio.provider.ts';
import { providerFailureOf, TEST_TIMEOUT_MS, verdictOf } from './provider-failure.ts';

// The Twilio adapter through the official `twilio` SDK (its retries off) against the loopback fake: what it sends,
// and how each kind of answer becomes a ProviderError the worker can act on.
let fake: FakeTwilio;
beforeAll(async () => {
  fake = await startFakeTwilio();
});
afterEach(() => {
  fake.reset();
  fake.state.messages.length = 0;
});
afterAll(() => fake.close());

const STATUS_CALLBACK = 'https://tidings.example.com/v1/provider-events/twilio';
const provider = () =>
  createTwilioProvider({ accountSid: fake.accountSid, authToken: fake.authToken, baseUrl: fake.url, statusCallbackUrl: STATUS_CALLBACK, timeoutMs: TEST_TIMEOUT_MS });
const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  from: '+14155550100',
  to: '+14155550123',
  body: 'Your code is 123456',
  ...overrides,
});
/** An error as Twilio's API answers it. */
const twilioError = (status: number, code: number, message: string) => ({
  kind: 'status' as const,
  status,
  body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});

describe('Twilio adapter', () => {
  it('sends the SMS with our status callback and returns the message sid', async () => {
    const accepted = await provider().sendSms(sms());
    expect(fake.state.messages).toHaveLength(1);
    expect(fake.state.messages[0]).toMatchObject({ sid: accepted.providerMessageId, from: '+14155550100', to: '+14155550123', statusCallback: STATUS_CALLBACK });
  });

  it('sends an MMS with its media URLs', async () => {
    await provider().sendSms(sms({ mediaUrls: ['https://example.com/a.png', 'https://example.com/b.png'] }));
    expect(fake.state.messages[0].mediaUrls).toEqual(['https://example.com/a.png', 'https://example.com/b.png']);
  });

  it('a refusal (an invalid To, 21211) is permanent', async () => {
    const error = await providerFailureOf(provider().sendSms(sms({ to: '+15005550001' })));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'refused', status: 400 });
  });

  it('a recipient who replied STOP (21610) is refused with its own reason', async () => {
    fake.failNext(1, twilioError(400, 21610, 'Attempt to send to unsubscribed recipient'));
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'refused', reason: RECIPIENT_STOPPED });
  });

  it('a 429 (20429, too many requests) is a deferral, not a failure', async () => {
    fake.failNext(1, twilioError(429, 20429, 'Too Many Requests'));
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'deferred', status: 429 });
  });

  it('an outage (5xx) is retryable', async () => {
    fake.failNext(1, twilioError(503, 20503, 'Service unavailable'));
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
    ['a 201 without a sid', { kind: 'status', status: 201, body: { status: 'queued' } }],
    ['a 201 that is not JSON', { kind: 'text', status: 201, body: '<html>Created</html>' }],
    ['a 502 page from a gateway', { kind: 'text', status: 502, body: '<html>502 Bad Gateway</html>' }],
  ] as const)('a malformed answer (%s) is a retryable ProviderError', async (_name, fault) => {
    fake.failNext(1, fault);
    const error = await providerFailureOf(provider().sendSms(sms()));
    expect(verdictOf(error)).toBe('retryable');
  });
});
