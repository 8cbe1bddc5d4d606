import type { Twilio } from 'twilio';
import { isRateLimitStatus, isRetryableStatus, ProviderError } from './provider-error.ts';
import { RECIPIENT_STOPPED } from './telnyx.provider.ts';

/** Twilio's error for a recipient who replied STOP to this sender. */
const TWILIO_UNSUBSCRIBED_RECIPIENT = 21610;
import type { OutgoingSms, SmsProvider } from './provider.types.ts';

export type TwilioOptions = {
  accountSid: string;
  authToken: string;
  /** Another API origin than api.twilio.com (a loopback fake in tests). */
  baseUrl?: string;
  /** Where Twilio posts status callbacks for each message (our /v1/provider-events/twilio). */
  statusCallbackUrl: string;
  timeoutMs: number;
};

/**
 * Builds the official client; `baseUrl` replaces the API's origin (the SDK has no option for it). The SDK is loaded
 * here, not at start-up: it takes seconds to load, which every process would pay even with Twilio unused.
 * @example const client = await createTwilioClient({ accountSid, authToken, timeoutMs: 15000 });
 */
export async function createTwilioClient(options: Pick<TwilioOptions, 'accountSid' | 'authToken' | 'baseUrl' | 'timeoutMs'>): Promise<Twilio> {
  const { default: twilio } = await import('twilio');
  const client = twilio(options.accountSid, options.authToken, { timeout: options.timeoutMs, autoRetry: false });
  if (options.baseUrl) client.api.baseUrl = options.baseUrl.replace(/\/$/, '');
  return client;
}

/**
 * SMS (MMS with media URLs) through Twilio's Messages API with the official `twilio` SDK, asking for status callbacks at our
 * provider-events URL. Twilio takes no idempotency key, so a repeat after a lost answer can send twice.
 * @example const sms = createTwilioProvider({ accountSid, authToken, statusCallbackUrl: `${publicApiUrl}/v1/provider-events/twilio`, timeoutMs: 15000 });
 */
export function createTwilioProvider(options: TwilioOptions): SmsProvider {
  let client: Promise<Twilio> | null = null;
  return {
    name: 'twilio',
    dedupesRepeats: false,
    async sendSms(sms: OutgoingSms) {
      try {
        client ??= createTwilioClient(options);
        const message = await (await client).messages.create({
          from: sms.from,
          to: sms.to,
          body: sms.body,
          // an MMS: Twilio fetches each URL and attaches it
          ...(sms.mediaUrls?.length ? { mediaUrl: sms.mediaUrls } : {}),
          statusCallback: options.statusCallbackUrl,
        });
        // an answer without a sid (a gateway's, a truncated one) names no message: callbacks could never find it
        if (!message.sid) throw new ProviderError('twilio', 'Twilio answered without a message sid', { isRetryable: true });
        return { providerMessageId: message.sid };
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        const status = (error as { status?: unknown }).status;
        if (typeof status === 'number') {
          const isRetryable = isRetryableStatus(status);
          const code = (error as { code?: number }).code;
          if (code === TWILIO_UNSUBSCRIBED_RECIPIENT) {
            throw new ProviderError('twilio', `Twilio refused the send: the recipient texted STOP (${code})`, { isRetryable: false, status, reason: RECIPIENT_STOPPED });
          }
          throw new ProviderError('twilio', `Twilio answered ${status}${code ? ` (error ${code})` : ''}`, {
            isRetryable,
            isRateLimited: isRateLimitStatus(status),
            status,
            reason: isRetryable ? 'provider_unavailable' : 'provider_rejected',
          });
        }
        throw new ProviderError('twilio', `Twilio could not be reached (${(error as Error).name})`, { isRetryable: true, reason: 'provider_timeout' });
      }
    },
  };
}
