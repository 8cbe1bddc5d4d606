// only the webhooks module: the whole SDK takes seconds to load
import { validateRequest } from 'twilio/lib/webhooks/webhooks';
import { CallbackSignatureError, type CallbackReport } from './callback-outcome.ts';

/**
 * Verifies a Twilio callback with the SDK's `validateRequest` (X-Twilio-Signature: HMAC-SHA1 with the auth token over
 * the URL Twilio posted to and the sorted form parameters) and reads it: a message status callback becomes a
 * status outcome, an incoming SMS an `inbound` notice. Throws CallbackSignatureError when the signature does not
 * check out; returns null for statuses that change nothing (queued, sending, sent).
 * @example const outcome = verifyTwilioCallback(rawBody, headers, { authToken, url: twilioCallbackUrl(config) });
 */
export function verifyTwilioCallback(rawBody: string, headers: Record<string, string | undefined>, options: { authToken: string | undefined; url: string }): CallbackReport | null {
  if (!options.authToken) throw new CallbackSignatureError('TWILIO_AUTH_TOKEN is not configured');
  const signature = headers['x-twilio-signature'];
  if (!signature) throw new CallbackSignatureError('Missing X-Twilio-Signature');
  const params = Object.fromEntries(new URLSearchParams(rawBody));
  if (!validateRequest(options.authToken, signature, options.url, params)) throw new CallbackSignatureError('Invalid Twilio signature');

  const providerMessageId = params.MessageSid ?? params.SmsSid;
  if (!providerMessageId) return null;
  const status = params.MessageStatus ?? params.SmsStatus;
  // Twilio's callbacks carry no signed event id (I-Twilio-Idempotency-Token is outside the signature): a message
  // reaches each status once, so the two together name the event
  const eventId = `${providerMessageId}.${status}`;
  const error = {
    code: params.ErrorCode ? `TWILIO_${params.ErrorCode}` : 'UNDELIVERED',
    message: `Twilio reported the message ${status}${params.ErrorCode ? ` (error ${params.ErrorCode})` : ''}`,
  };
  switch (status) {
    case 'received':
      return { kind: 'inbound', channelType: 'sms', providerMessageId, eventId, from: params.From ?? '', to: params.To ?? '', body: params.Body ?? '' };
    case 'delivered':
      return { providerMessageId, eventId, kind: 'delivered' };
    case 'undelivered':
      return { providerMessageId, eventId, kind: 'undelivered', error };
    case 'failed':
      return { providerMessageId, eventId, kind: 'failed', error };
    default:
      return null;
  }
}
