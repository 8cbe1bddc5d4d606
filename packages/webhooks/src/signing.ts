import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of every endpoint secret, as Standard Webhooks libraries expect it. */
export const SECRET_PREFIX = 'whsec_';

/**
 * A new endpoint secret: `whsec_` and 32 random bytes in base64, the form `standardwebhooks` accepts as is.
 * @example const secret = generateWebhookSecret(); // 'whsec_Zm9v...'
 */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_` secret (the base64 part, decoded). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/**
 * One Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`.
 * @example signPayload('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 * // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${digest}`;
}

export type SignatureHeaders = { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

/**
 * The three Standard Webhooks headers for a delivery. With several active secrets (during a rotation's overlap)
 * the signature header carries one `v1,` signature per secret, space-separated, so a receiver holding either
 * secret verifies it.
 * @example
 * const headers = signatureHeaders({ secrets: [current, previous], id: 'evt_1', timestampSeconds: 1614265330, body });
 */
export function signatureHeaders(input: { secrets: string[]; id: string; timestampSeconds: number; body: string }): SignatureHeaders {
  if (input.secrets.length === 0) throw new Error('at least one secret is needed to sign');
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': input.secrets.map((s) => signPayload(s, input.id, input.timestampSeconds, input.body)).join(' '),
  };
}
