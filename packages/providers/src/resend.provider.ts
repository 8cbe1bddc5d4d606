import { Resend } from 'resend';
import { ProviderError, isRetryableStatus } from './provider-error.ts';
import type { EmailProvider, OutgoingEmail } from './provider.types.ts';
import { readAttachment } from './read-attachment.ts';

/** Resend error names that no retry will fix (their API answers these with a 4xx). */
const PERMANENT_ERRORS = new Set([
  'validation_error',
  'missing_required_field',
  'invalid_from_address',
  'invalid_to_address',
  'invalid_parameter',
  'invalid_attachment',
  'invalid_idempotency_key',
  'invalid_idempotent_request',
  'missing_api_key',
  'invalid_api_key',
  'restricted_api_key',
  'not_found',
  'method_not_allowed',
]);

/** The tag that carries our message id, so callbacks can find a message even before its provider id is stored. */
export const RESEND_MESSAGE_TAG = 'tidings_message_id';

/**
 * Email through the official `resend` SDK. The message id is sent as `Idempotency-Key`, so a repeat after a crash
 * (provider accepted, our update lost) gets the first email's id back instead of a second email.
 * @example const resend = createResendProvider({ apiKey: config.resend.apiKey, baseUrl: config.resend.baseUrl, timeoutMs: 15000 });
 */
export function createResendProvider(options: { apiKey: string; baseUrl?: string; timeoutMs: number }): EmailProvider {
  const client = new Resend(options.apiKey, { baseUrl: options.baseUrl });
  return {
    name: 'resend',
    dedupesRepeats: true,
    async sendEmail(email: OutgoingEmail) {
      // Resend takes files inside its JSON body (base64), so each is read whole here, one request at a time.
      const attachments = [];
      for (const a of email.attachments ?? []) {
        attachments.push({ filename: a.filename, content: await readAttachment(a), contentType: a.contentType, ...(a.contentId ? { contentId: a.contentId } : {}) });
      }
      const { data, error } = await client.emails.send(
        {
          from: email.from,
          to: email.to,
          subject: email.subject,
          ...(email.html ? { html: email.html } : {}),
          text: email.text ?? undefined,
          ...(email.cc?.length ? { cc: email.cc } : {}),
          ...(email.bcc?.length ? { bcc: email.bcc } : {}),
          ...(email.replyTo?.length ? { replyTo: email.replyTo } : {}),
          ...(email.headers && Object.keys(email.headers).length ? { headers: email.headers } : {}),
          ...(attachments.length ? { attachments } : {}),
          tags: [{ name: RESEND_MESSAGE_TAG, value: email.messageId }],
        } as Parameters<typeof client.emails.send>[0],
        { idempotencyKey: email.messageId, signal: AbortSignal.timeout(options.timeoutMs) } as never,
      );
      if (data?.id) return { providerMessageId: data.id };
      const status = typeof error?.statusCode === 'number' ? error.statusCode : undefined;
      const name = error?.name ?? 'unknown_error';
      // No status means the SDK never got an answer (network, timeout) or the body did not say: retry unless the
      // error's name says it is about the request itself.
      const isRetryable = status !== undefined ? isRetryableStatus(status) : !PERMANENT_ERRORS.has(name);
      throw new ProviderError('resend', `Resend ${status ? `answered ${status}` : 'failed'}: ${name}: ${(error?.message ?? '').slice(0, 300)}`, {
        isRetryable,
        status,
        reason: isRetryable ? 'provider_unavailable' : 'provider_rejected',
      });
    },
  };
}
