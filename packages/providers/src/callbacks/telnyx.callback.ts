import { createPublicKey, verify } from 'node:crypto';
import { asCallbackEvent, CallbackSignatureError, type CallbackReport } from './callback-outcome.ts';
import { TELNYX_STOPPED_ERROR_CODE } from '../telnyx.provider.ts';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; Telnyx hands out the raw 32-byte key in base64. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const TOLERANCE_SECONDS = 300;

type TelnyxEvent = {
  data?: {
    /** The event's id, the same on every retry. */
    id?: string;
    event_type?: string;
    payload?: {
      id?: string;
      from?: { phone_number?: string };
      to?: { phone_number?: string; status?: string }[];
      text?: string;
      errors?: { code?: string; title?: string; detail?: string }[];
    };
  };
};

/**
 * Verifies a Telnyx callback (Ed25519 over `timestamp|body`, headers `telnyx-signature-ed25519` and
 * `telnyx-timestamp`, within 5 minutes of `nowMs`) and reads the final delivery status of `message.finalized`
 * (error 40300, "blocked due to STOP", says the recipient opted out) or an inbound SMS (`message.received`).
 * Throws CallbackSignatureError when anything does not check out; returns null for events that change nothing.
 * @example const outcome = verifyTelnyxCallback(rawBody, headers, config.telnyx.publicKey, Date.now());
 */
export function verifyTelnyxCallback(rawBody: string, headers: Record<string, string | undefined>, publicKeyBase64: string | undefined, nowMs: number): CallbackReport | null {
  if (!publicKeyBase64) throw new CallbackSignatureError('TELNYX_PUBLIC_KEY is not configured');
  const signature = headers['telnyx-signature-ed25519'];
  const timestamp = headers['telnyx-timestamp'];
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) throw new CallbackSignatureError('Missing or malformed Telnyx signature headers');
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) throw new CallbackSignatureError('Telnyx timestamp outside the tolerance');
  const raw = Buffer.from(publicKeyBase64, 'base64');
  const signatureBytes = Buffer.from(signature, 'base64');
  if (raw.length !== 32 || signatureBytes.length !== 64) throw new CallbackSignatureError('Malformed Telnyx key or signature');
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  if (!verify(null, Buffer.from(`${timestamp}|${rawBody}`), key, signatureBytes)) throw new CallbackSignatureError('Invalid Telnyx signature');

  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return null; // signed but not JSON: nothing we can act on
  }
  const event = asCallbackEvent<TelnyxEvent>(parsed, 'Telnyx');
  const payload = event.data?.payload;
  if (!payload?.id) return null;
  const eventId = event.data?.id ?? `${event.data?.event_type}.${payload.id}`;
  if (event.data?.event_type === 'message.received') {
    const from = payload.from?.phone_number;
    const to = payload.to?.[0]?.phone_number;
    if (!from || !to) return null;
    return { kind: 'inbound', channelType: 'sms', providerMessageId: payload.id, eventId, from, to, body: payload.text ?? '' };
  }
  if (event.data?.event_type !== 'message.finalized') return null;
  const status = payload.to?.[0]?.status;
  const firstError = payload.errors?.[0];
  const error = { code: firstError?.code ?? 'UNDELIVERED', message: (firstError?.detail ?? firstError?.title ?? `Telnyx reported ${status}`).slice(0, 500) };
  switch (status) {
    case 'delivered':
      return { providerMessageId: payload.id, eventId, kind: 'delivered' };
    case 'delivery_failed':
      return { providerMessageId: payload.id, eventId, kind: 'undelivered', error };
    case 'sending_failed':
      return { providerMessageId: payload.id, eventId, kind: 'failed', error, ...(firstError?.code === TELNYX_STOPPED_ERROR_CODE ? { isRecipientStopped: true } : {}) };
    default:
      return null;
  }
}
