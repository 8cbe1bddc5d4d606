import { createFakeRateLimit, startFakeResend, type FakeResend } from '@tidings/testing';
import { createResendProvider, RESEND_MESSAGE_TAG } from '../src/resend.provider.ts';
import type { OutgoingEmail } from '../src/provider.types.ts';
import { providerFailureOf, TEST_TIMEOUT_MS, verdictOf } from './provider-failure.ts';

// The Resend adapter through the official `resend` SDK against the loopback fake: what it sends, and how each kind
// of answer becomes a ProviderError the worker can act on.
let fake: FakeResend;
beforeAll(async () => {
  fake = await startFakeResend();
});
afterEach(() => {
  fake.reset();
  fake.state.emails.length = 0;
  // a fresh bucket: one a test emptied would still be empty in the next
  fake.state.limit = createFakeRateLimit();
  fake.state.hangAfterAccept = 0;
});
afterAll(() => fake.close());

const provider = () => createResendProvider({ apiKey: 're_test', baseUrl: fake.url, timeoutMs: TEST_TIMEOUT_MS });
const email = (overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  from: 'Acme <hello@example.com>',
  to: 'ada@example.com',
  subject: 'Hi',
  text: 'Hello',
  ...overrides,
});

describe('Resend adapter', () => {
  it("sends the email with our message id as its tag and Idempotency-Key, and returns Resend's id", async () => {
    const sent = email({ html: '<p>Hello</p>', cc: ['cc@example.com'], headers: { 'X-Campaign': 'nov' } });
    const accepted = await provider().sendEmail(sent);
    expect(fake.state.emails).toHaveLength(1);
    const stored = fake.state.emails[0];
    expect(accepted.providerMessageId).toBe(stored.id);
    expect(stored).toMatchObject({ to: ['ada@example.com'], subject: 'Hi', html: '<p>Hello</p>', cc: ['cc@example.com'], headers: { 'X-Campaign': 'nov' } });
    expect(stored.tags).toEqual([{ name: RESEND_MESSAGE_TAG, value: sent.messageId }]);
    expect(fake.requests[0].headers['idempotency-key']).toBe(sent.messageId);
  });

  it("a repeat of the same message gets the first email's id back, not a second email", async () => {
    const sent = email();
    const first = await provider().sendEmail(sent);
    const again = await provider().sendEmail(sent);
    expect(again.providerMessageId).toBe(first.providerMessageId);
    expect(fake.state.emails).toHaveLength(1);
  });

  it('a refusal (422) is permanent: no retry will fix it', async () => {
    const error = await providerFailureOf(provider().sendEmail(email({ text: null, html: null })));
    expect({ verdict: verdictOf(error), status: error.status, reason: error.reason }).toEqual({ verdict: 'refused', status: 422, reason: 'provider_rejected' });
  });

  it("a 429 past the account's limit is a deferral for as long as retry-after says, not a failure", async () => {
    fake.state.limit.ratePerSecond = 1;
    await provider().sendEmail(email());
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'deferred', status: 429 });
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(fake.state.counts.rateLimited).toBe(1);
  });

  it('an outage (5xx) is retryable', async () => {
    // Resend's error body carries the status; the SDK hands the adapter the body, not the HTTP status
    fake.failNext(1, { kind: 'status', status: 503, body: { statusCode: 503, name: 'internal_server_error', message: 'Unavailable' } });
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'retryable', status: 503 });
  });

  // (reported as provider_unavailable: the SDK says no more than "unable to fetch", and broadcast.retryFailed passes
  // PROVIDER_UNAVAILABLE but not PROVIDER_TIMEOUT)
  it('no answer within the timeout is retryable (the Idempotency-Key makes the repeat safe)', async () => {
    fake.state.hangAfterAccept = 1;
    const started = Date.now();
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect(verdictOf(error)).toBe('retryable');
    expect(Date.now() - started).toBeLessThan(TEST_TIMEOUT_MS * 10);
  });

  it.each([
    ['a 200 without an id', { kind: 'status', status: 200, body: { object: 'email' } }],
    ['a 200 that is not JSON', { kind: 'text', status: 200, body: '<html>502 Bad Gateway</html>' }],
    ['a 502 page from a gateway', { kind: 'text', status: 502, body: '<html>502 Bad Gateway</html>' }],
    ['a 500 whose JSON says nothing Resend would', { kind: 'status', status: 500, body: { error: 'upstream' } }],
  ] as const)('a malformed answer (%s) is a retryable ProviderError', async (_name, fault) => {
    fake.failNext(1, fault);
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect(verdictOf(error)).toBe('retryable');
  });

  it('a batch sends the valid emails and refuses the invalid one by its index; a throttled batch is a deferral', async () => {
    const { results } = await provider().sendEmailBatch!([email(), email({ text: null }), email()]);
    expect(results.map((r) => ('error' in r ? verdictOf(r.error) : 'sent'))).toEqual(['sent', 'refused', 'sent']);
    expect(fake.state.emails).toHaveLength(2);
    fake.state.limit.ratePerSecond = 1;
    await provider().sendEmail(email());
    const error = await providerFailureOf(provider().sendEmailBatch!([email()]));
    expect(verdictOf(error)).toBe('deferred');
  });
});
