import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Signs a Resend callback body as Svix does, so tests post exactly what Resend would.
 * @example const { body, headers } = signResendCallback('whsec_...', { type: 'email.bounced', data: { email_id } });
 */
export function signResendCallback(secret: string, payload: unknown, options: { id?: string; at?: Date } = {}) {
  const body = JSON.stringify(payload);
  const id = options.id ?? `msg_${Math.random().toString(36).slice(2)}`;
  const at = options.at ?? new Date();
  const signature = new Webhook(secret).sign(id, at, body);
  return { body, headers: { 'svix-id': id, 'svix-timestamp': String(Math.floor(at.getTime() / 1000)), 'svix-signature': signature, 'content-type': 'application/json' } };
}

/** An Ed25519 key pair like a Telnyx account's: the public key as Telnyx shows it (raw 32 bytes, base64). */
export function makeTelnyxKeyPair(): { publicKeyBase64: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { publicKeyBase64: spki.subarray(spki.length - 32).toString('base64'), privateKey };
}

/**
 * Signs a Telnyx callback body (Ed25519 over `timestamp|body`).
 * @example const { body, headers } = signTelnyxCallback(privateKey, { data: { event_type: 'message.finalized', payload } });
 */
export function signTelnyxCallback(privateKey: KeyObject, payload: unknown, options: { at?: Date } = {}) {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor((options.at ?? new Date()).getTime() / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`), privateKey).toString('base64');
  return { body, headers: { 'telnyx-signature-ed25519': signature, 'telnyx-timestamp': timestamp, 'content-type': 'application/json' } };
}
