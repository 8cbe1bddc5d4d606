import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeaders, signPayload } from './signing.ts';
import { decryptSecret, encryptSecret } from './secret-box.ts';

// The known answer of the Standard Webhooks reference test suite.
const KAT = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signing', () => {
  it('known answer: fixed secret, id, timestamp and body give the exact signature', () => {
    expect(signPayload(KAT.secret, KAT.id, KAT.timestamp, KAT.body)).toBe(KAT.signature);
    expect(signatureHeaders({ secrets: [KAT.secret], id: KAT.id, timestampSeconds: KAT.timestamp, body: KAT.body })).toEqual({
      'webhook-id': KAT.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': KAT.signature,
    });
  });

  it('a changed body, id or timestamp changes the signature', () => {
    expect(signPayload(KAT.secret, KAT.id, KAT.timestamp, '{"test": 2432232315}')).not.toBe(KAT.signature);
    expect(signPayload(KAT.secret, 'msg_other', KAT.timestamp, KAT.body)).not.toBe(KAT.signature);
    expect(signPayload(KAT.secret, KAT.id, KAT.timestamp + 1, KAT.body)).not.toBe(KAT.signature);
  });

  it('the official standardwebhooks library verifies what we sign with a generated secret', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: new Date().toISOString(), data: { ok: true } });
    const headers = signatureHeaders({ secrets: [secret], id: 'evt_1', timestampSeconds: Math.floor(Date.now() / 1000), body });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow('No matching signature found');
  });

  it('with two active secrets, two v1 signatures: a receiver holding either one verifies', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = '{"id":"evt_2"}';
    const headers = signatureHeaders({ secrets: [current, previous], id: 'evt_2', timestampSeconds: Math.floor(Date.now() / 1000), body });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(current).verify(body, headers)).toEqual({ id: 'evt_2' });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ id: 'evt_2' });
  });
});

describe('secret encryption at rest', () => {
  it('round-trips, never stores the plaintext, and refuses a wrong key or altered value', () => {
    const secret = generateWebhookSecret();
    const stored = encryptSecret(secret, 'key one');
    expect(stored).not.toContain(secret.slice(6));
    expect(stored).not.toBe(encryptSecret(secret, 'key one')); // a fresh IV each time
    expect(decryptSecret(stored, 'key one')).toBe(secret);
    expect(() => decryptSecret(stored, 'key two')).toThrow();
    const [v, iv, tag, ct] = stored.split('.');
    const altered = [v, iv, tag, `${ct!.slice(0, -2)}AA`].join('.');
    expect(() => decryptSecret(altered, 'key one')).toThrow();
  });
});
