import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Tidings, TidingsError, verifyWebhook, webhookSignature } from './index.ts';

// The Standard Webhooks reference vector: fixed secret, id, timestamp and body, and the signature they must give.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const EXPECTED = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const at = (seconds: number) => () => seconds * 1000;
const headersFor = (signature: string, timestamp = TIMESTAMP, id = ID) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

async function rejection(promise: Promise<unknown>): Promise<TidingsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TidingsError);
  expect((error as TidingsError).code).toBe('INVALID_SIGNATURE');
  return error as TidingsError;
}

describe('webhook signatures (Standard Webhooks)', () => {
  it('signs the reference vector to the known answer, as node:crypto computes it independently', async () => {
    const independent = `v1,${createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64'))
      .update(`${ID}.${TIMESTAMP}.${BODY}`)
      .digest('base64')}`;
    expect(independent).toBe(EXPECTED);
    expect(await webhookSignature(SECRET, ID, TIMESTAMP, BODY)).toBe(EXPECTED);
  });

  it('verifies the reference vector and returns the parsed payload', async () => {
    const event = await verifyWebhook(BODY, headersFor(EXPECTED), SECRET, { now: at(TIMESTAMP + 10) });
    expect(event).toEqual({ test: 2432232314 });
  });

  it('accepts what the official standardwebhooks library signs, and the library accepts ours', async () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'message.delivered', createdAt: '2026-11-23T08:00:00.000Z', data: { id: 'msg_1' } });
    const now = new Date();
    const theirs = new Webhook(SECRET).sign('msg_oracle', now, body);
    const timestamp = Math.floor(now.getTime() / 1000);
    const tidings = new Tidings({ apiKey: 'sk_test_unused' });
    const event = await tidings.webhooks.verify(body, new Headers(headersFor(theirs, timestamp, 'msg_oracle')), SECRET);
    expect(event.type).toBe('message.delivered');

    const ours = await webhookSignature(SECRET, 'msg_oracle', timestamp, body);
    expect(new Webhook(SECRET).verify(body, headersFor(ours, timestamp, 'msg_oracle'))).toEqual(JSON.parse(body));
  });

  it('accepts a matching signature among several (secret rotation) and bytes as the payload', async () => {
    const other = `v1,${Buffer.alloc(32, 7).toString('base64')}`;
    const event = await verifyWebhook(new TextEncoder().encode(BODY), headersFor(`${other} ${EXPECTED}`), SECRET, { now: at(TIMESTAMP) });
    expect(event).toEqual({ test: 2432232314 });
  });

  it('rejects a changed body, another secret, a wrong id, and missing headers', async () => {
    const now = at(TIMESTAMP);
    await rejection(verifyWebhook('{"test": 2432232315}', headersFor(EXPECTED), SECRET, { now }));
    await rejection(verifyWebhook(BODY, headersFor(EXPECTED), `whsec_${Buffer.alloc(24, 1).toString('base64')}`, { now }));
    await rejection(verifyWebhook(BODY, headersFor(EXPECTED, TIMESTAMP, 'msg_other'), SECRET, { now }));
    await rejection(verifyWebhook(BODY, { 'webhook-id': ID, 'webhook-timestamp': String(TIMESTAMP) }, SECRET, { now }));
  });

  it('rejects a timestamp outside the tolerance either way, and honours a custom tolerance', async () => {
    await rejection(verifyWebhook(BODY, headersFor(EXPECTED), SECRET, { now: at(TIMESTAMP + 301) }));
    await rejection(verifyWebhook(BODY, headersFor(EXPECTED), SECRET, { now: at(TIMESTAMP - 301) }));
    await expect(verifyWebhook(BODY, headersFor(EXPECTED), SECRET, { now: at(TIMESTAMP + 301), toleranceSeconds: 600 })).resolves.toBeDefined();
    const error = await rejection(verifyWebhook(BODY, headersFor(EXPECTED), SECRET, { now: at(TIMESTAMP + 3600) }));
    expect(error.message).toMatch(/tolerance/);
  });
});
