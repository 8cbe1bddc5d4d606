import type { Transporter } from 'nodemailer';
import { ProviderError } from './provider-error.ts';
import type { EmailProvider, OutgoingEmail } from './provider.types.ts';
import { mailOptionsOf, smtpMessageId } from './email-source.ts';

export { SMTP_MESSAGE_ID_HEADER, smtpMessageId } from './email-source.ts';

type SmtpError = Error & { responseCode?: number; code?: string; response?: string };

/**
 * A transient reply that asks us to slow down rather than saying the server is unwell: SES's SMTP interface (454
 * Throttling failure: Maximum sending rate exceeded), Gmail's and Microsoft's 421/451 "rate limited", "too many ...".
 */
const SLOW_DOWN = /throttl|rate.?limit|too many|sending rate|slow down/i;

/**
 * An SMTP failure as a ProviderError: a 4xx reply may pass later (one saying to slow down is a throttle: the message
 * waits), a 5xx never will; no reply at all is retryable.
 */
function providerError(error: SmtpError): ProviderError {
  const status = error.responseCode;
  if (status !== undefined && status >= 500) {
    return new ProviderError('smtp', `The SMTP server refused the email (${status})`, { isRetryable: false, status, reason: 'provider_rejected' });
  }
  if (status !== undefined && status >= 400 && SLOW_DOWN.test(error.response ?? error.message)) {
    return new ProviderError('smtp', `The SMTP server throttled the email (${status})`, { isRetryable: true, isRateLimited: true, status });
  }
  if (status !== undefined && status >= 400) {
    return new ProviderError('smtp', `The SMTP server deferred the email (${status})`, { isRetryable: true, status, reason: 'provider_unavailable' });
  }
  // connection refused, TLS or greeting failures, timeouts: nothing was accepted
  return new ProviderError('smtp', `The SMTP server could not be reached (${error.code ?? 'no reply'})`, { isRetryable: true, reason: 'provider_timeout' });
}

/**
 * Email through any SMTP server with nodemailer, over a pool of connections (`smtps://` is TLS from the start,
 * `smtp://` upgrades with STARTTLS when the server offers it). SMTP takes no idempotency key: the Message-ID is
 * derived from our message id instead (see smtpMessageId). The message is accepted only by the server's final reply
 * to DATA, so a connection cut earlier sends nothing. The error messages never carry the URL's credentials.
 * @example const smtp = createSmtpProvider({ url: config.smtp.url!, poolSize: 5, timeoutMs: 15000 });
 */
export function createSmtpProvider(options: { url: string; poolSize: number; timeoutMs: number }): EmailProvider & { close(): void } {
  // nodemailer is loaded at the first send, so processes that never send over SMTP (the API) do not pay for it
  let transport: Promise<Transporter> | null = null;
  const createTransport = async () => {
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport({
      url: options.url,
      pool: true,
      maxConnections: options.poolSize,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
    } as Parameters<typeof nodemailer.createTransport>[0]);
  };
  return {
    name: 'smtp',
    dedupesRepeats: false,
    async sendEmail(email: OutgoingEmail) {
      const messageId = smtpMessageId(email.messageId, email.from);
      try {
        transport ??= createTransport();
        await (await transport).sendMail(mailOptionsOf(email));
      } catch (error) {
        throw providerError(error as SmtpError);
      }
      return { providerMessageId: messageId };
    },
    close: () => void transport?.then((t) => t.close()),
  };
}
