import { TidingsError } from './errors.ts';

/** What Tidings POSTs to a webhook endpoint. */
export type WebhookEvent<TData = Record<string, unknown>> = {
  id: string;
  /** `message.delivered`, `contact.created`, `webhook.test`, ... */
  type: string;
  createdAt: string;
  data: TData;
};

/** Request headers as `fetch`'s `Headers` or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  /** How far `webhook-timestamp` may be from now, either way, against replays. Default 300 s. */
  toleranceSeconds?: number;
  /** The current time in ms; for tests. */
  now?: () => number;
};

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fail(message: string): never {
  throw new TidingsError({ code: 'INVALID_SIGNATURE', message, status: 0 });
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares without an early exit, so the time taken says nothing about how much of a guess was right. */
function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * The Standard Webhooks signature of a payload: base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's
 * bytes (`whsec_<base64>`). Web Crypto only, so it runs on Node 20, Deno, Bun, workers and browsers.
 * @example await webhookSignature('whsec_...', 'msg_1', 1700000000, '{"id":"evt_1"}') // 'v1,K5oZ...'
 */
export async function webhookSignature(secret: string, id: string, timestampSeconds: number | string, body: string | Uint8Array): Promise<string> {
  const keyBytes = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = await globalThis.crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestampSeconds}.${text}`));
  return `v1,${toBase64(new Uint8Array(signed))}`;
}

/**
 * Checks that a webhook request came from Tidings (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) and is recent, then returns the parsed event. Pass the raw body exactly as received: a
 * re-serialized JSON object will not match. Throws a TidingsError with code `INVALID_SIGNATURE` otherwise.
 * @example
 * const event = await verifyWebhook(await req.text(), req.headers, process.env.TIDINGS_WEBHOOK_SECRET!);
 * if (event.type === 'message.delivered') ...
 */
export async function verifyWebhook<TData = Record<string, unknown>>(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<TData>> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) fail('Missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) fail('webhook-timestamp is not a number of seconds');

  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) fail('webhook-timestamp is outside the tolerance (replayed or clock skew)');

  const expected = await webhookSignature(secret, id, timestamp, payload);
  // Several signatures arrive during a secret rotation; one matching is enough.
  const isValid = signatures.split(' ').some((candidate) => timingSafeEqual(candidate, expected));
  if (!isValid) fail('No webhook-signature matches the secret');

  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  try {
    return JSON.parse(text) as WebhookEvent<TData>;
  } catch {
    return fail('The webhook payload is not JSON');
  }
}
