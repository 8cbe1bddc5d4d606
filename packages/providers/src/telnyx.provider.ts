import { ProviderError, isRateLimitStatus, isRetryableStatus, paceFromHeaders } from './provider-error.ts';
import type { OutgoingSms, SmsProvider } from './provider.types.ts';

/** The Telnyx error code of a send to a number that texted STOP ("Blocked due to STOP message"). */
export const TELNYX_STOPPED_ERROR_CODE = '40300';

/** The ProviderError reason of a send refused because the recipient opted out. */
export const RECIPIENT_STOPPED = 'recipient_stopped';

/**
 * SMS through the official `telnyx` SDK, with the SDK's own retries off (the worker retries with backoff and
 * counts attempts). Telnyx messaging takes no idempotency key, so the crash window between its answer and our
 * update is at-least-once for SMS (see README, "Sending").
 * @example const telnyx = createTelnyxProvider({ apiKey: config.telnyx.apiKey, baseUrl: config.telnyx.baseUrl, timeoutMs: 15000 });
 */
export function createTelnyxProvider(options: { apiKey: string; baseUrl?: string; timeoutMs: number }): SmsProvider {
  // required here, not imported: the SDK holds ~16 MiB, which every process would carry even with Telnyx unused
  const { Telnyx } = require('telnyx') as typeof import('telnyx');
  const client = new Telnyx({ apiKey: options.apiKey, baseURL: options.baseUrl, maxRetries: 0, timeout: options.timeoutMs });
  return {
    name: 'telnyx',
    dedupesRepeats: false,
    async sendSms(sms: OutgoingSms) {
      try {
        const response = await client.messages.send({ from: sms.from, to: sms.to, text: sms.body, ...(sms.mediaUrls?.length ? { media_urls: sms.mediaUrls } : {}) });
        const id = response.data?.id;
        if (!id) throw new ProviderError('telnyx', 'Telnyx answered without a message id', { isRetryable: true });
        return { providerMessageId: id };
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        if (error instanceof Telnyx.APIError && typeof error.status === 'number') {
          const codes = ((error.error as { errors?: { code?: unknown }[] } | undefined)?.errors ?? []).map((e) => String(e.code));
          if (codes.includes(TELNYX_STOPPED_ERROR_CODE)) {
            throw new ProviderError('telnyx', `Telnyx refused the send: the recipient texted STOP (${TELNYX_STOPPED_ERROR_CODE})`, {
              isRetryable: false,
              status: error.status,
              reason: RECIPIENT_STOPPED,
            });
          }
          if (isRateLimitStatus(error.status)) {
            const { retryAfterSeconds } = paceFromHeaders(error.headers as Headers | undefined);
            throw new ProviderError('telnyx', `Telnyx answered 429: ${error.message.slice(0, 300)}`, {
              isRetryable: true,
              isRateLimited: true,
              status: 429,
              retryAfterMs: retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
            });
          }
          const isRetryable = isRetryableStatus(error.status);
          throw new ProviderError('telnyx', `Telnyx answered ${error.status}: ${error.message.slice(0, 300)}`, { isRetryable, status: error.status });
        }
        // connection errors and timeouts: worth another try
        throw new ProviderError('telnyx', `Telnyx unreachable: ${(error as Error).message.slice(0, 300)}`, { isRetryable: true, reason: 'provider_timeout' });
      }
    },
  };
}
