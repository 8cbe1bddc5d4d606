import { Webhook } from 'standardwebhooks';
import { RESEND_MESSAGE_TAG } from '../resend.provider.ts';
import { asCallbackEvent, CallbackSignatureError, type CallbackReport } from './callback-outcome.ts';

type ResendEvent = {
  type?: string;
  data?: {
    email_id?: string;
    tags?: Record<string, string> | { name: string; value: string }[];
    bounce?: { type?: string; message?: string };
    click?: { link?: string };
    from?: string;
    to?: string[];
    subject?: string;
  };
};

const header = (headers: Record<string, string | undefined>, name: string) => headers[name] ?? headers[name.toLowerCase()];

/**
 * Verifies a Resend callback (Svix-signed: `svix-id`, `svix-timestamp`, `svix-signature`, HMAC-SHA256 with the
 * `whsec_` secret, timestamps within 5 minutes) and reads what it says: a status (delivered, bounced, failed),
 * engagement (opened, clicked with its link, complained, delivery_delayed) or an inbound email (`email.received`,
 * which carries no content: `providerMessageId` is what to fetch it by). Throws CallbackSignatureError when the
 * signature does not check out; returns null for event types that change nothing (sent, scheduled...).
 * @example const outcome = verifyResendCallback(rawBody, headers, config.resend.webhookSecret);
 */
export function verifyResendCallback(rawBody: string, headers: Record<string, string | undefined>, secret: string | undefined): CallbackReport | null {
  if (!secret) throw new CallbackSignatureError('RESEND_WEBHOOK_SECRET is not configured');
  let signed: unknown;
  // Svix signs the id with the body: a replay carries the same one
  const eventId = header(headers, 'svix-id') ?? header(headers, 'webhook-id') ?? '';
  try {
    signed = new Webhook(secret).verify(rawBody, {
      'webhook-id': eventId,
      'webhook-timestamp': header(headers, 'svix-timestamp') ?? header(headers, 'webhook-timestamp') ?? '',
      'webhook-signature': header(headers, 'svix-signature') ?? header(headers, 'webhook-signature') ?? '',
    });
  } catch (error) {
    throw new CallbackSignatureError(`Invalid Resend signature: ${(error as Error).message}`);
  }
  const event = asCallbackEvent<ResendEvent>(signed, 'Resend');
  const providerMessageId = event.data?.email_id;
  if (!providerMessageId) return null;
  if (event.type === 'email.received') {
    const to = event.data?.to?.[0];
    if (!event.data?.from || !to) return null;
    return { kind: 'inbound', channelType: 'email', providerMessageId, eventId, from: event.data.from, to, subject: event.data.subject ?? null };
  }
  const tags = event.data?.tags;
  const messageId = Array.isArray(tags) ? tags.find((t) => t.name === RESEND_MESSAGE_TAG)?.value : tags?.[RESEND_MESSAGE_TAG];
  const base = { providerMessageId, eventId, ...(messageId ? { messageId } : {}) };
  switch (event.type) {
    case 'email.delivered':
      return { ...base, kind: 'delivered' };
    case 'email.bounced':
      return { ...base, kind: 'bounced', error: { code: 'BOUNCED', message: (event.data?.bounce?.message ?? 'The recipient server rejected the email').slice(0, 500) } };
    case 'email.complained':
      return { ...base, kind: 'complained' };
    case 'email.opened':
      return { ...base, kind: 'opened' };
    case 'email.clicked':
      return { ...base, kind: 'clicked', link: event.data?.click?.link?.slice(0, 2048) ?? null };
    case 'email.delivery_delayed':
      return { ...base, kind: 'delayed' };
    case 'email.failed':
      return { ...base, kind: 'failed', error: { code: 'PROVIDER_FAILED', message: 'Resend could not send the email' } };
    default:
      return null;
  }
}
