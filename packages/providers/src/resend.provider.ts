import { createHash } from 'node:crypto';
import { Resend } from 'resend';
import { ProviderError, isRateLimitStatus, isRetryableStatus, paceFromHeaders } from './provider-error.ts';
import type { BatchItemResult, EmailProvider, OutgoingEmail } from './provider.types.ts';
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

/** Resend's `/emails/batch` takes at most this many emails per call. */
export const RESEND_BATCH_SIZE = 100;

/** The tag that carries our message id, so callbacks can find a message even before its provider id is stored. */
export const RESEND_MESSAGE_TAG = 'tidings_message_id';

/**
 * Email through the official `resend` SDK. The message id is sent as `Idempotency-Key`, so a repeat after a crash
 * (provider accepted, our update lost) gets the first email's id back instead of a second email.
 * @example const resend = createResendProvider({ apiKey: config.resend.apiKey, baseUrl: config.resend.baseUrl, timeoutMs: 15000 });
 */
/** The request body of one email, for `/emails` and `/emails/batch` alike (attachments only on the first). */
function resendEmailOf(email: OutgoingEmail) {
  return {
    from: email.from,
    to: email.to,
    subject: email.subject,
    ...(email.html ? { html: email.html } : {}),
    text: email.text ?? undefined,
    ...(email.cc?.length ? { cc: email.cc } : {}),
    ...(email.bcc?.length ? { bcc: email.bcc } : {}),
    ...(email.replyTo?.length ? { replyTo: email.replyTo } : {}),
    ...(email.headers && Object.keys(email.headers).length ? { headers: email.headers } : {}),
    tags: [{ name: RESEND_MESSAGE_TAG, value: email.messageId }],
  };
}

/** A failed Resend call as a ProviderError: a 429 is a rate limit (with its `retry-after`), never an outage. */
function resendError(error: { statusCode?: number | null; name?: string; message?: string } | null | undefined, headers: Record<string, string> | null | undefined): ProviderError {
  const status = typeof error?.statusCode === 'number' ? error.statusCode : undefined;
  const name = error?.name ?? 'unknown_error';
  const message = `Resend ${status ? `answered ${status}` : 'failed'}: ${name}: ${(error?.message ?? '').slice(0, 300)}`;
  if (isRateLimitStatus(status) || name === 'rate_limit_exceeded') {
    const { retryAfterSeconds, resetSeconds } = paceFromHeaders(headers);
    const waitSeconds = retryAfterSeconds ?? resetSeconds;
    return new ProviderError('resend', message, { isRetryable: true, isRateLimited: true, status, retryAfterMs: waitSeconds === undefined ? undefined : waitSeconds * 1000 });
  }
  // No status means the SDK never got an answer (network, timeout) or the body did not say: retry unless the
  // error's name says it is about the request itself.
  const isRetryable = status !== undefined ? isRetryableStatus(status) : !PERMANENT_ERRORS.has(name);
  return new ProviderError('resend', message, { isRetryable, status, reason: isRetryable ? 'provider_unavailable' : 'provider_rejected' });
}

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
      const { data, error, headers } = await client.emails.send(
        { ...resendEmailOf(email), ...(attachments.length ? { attachments } : {}) } as Parameters<typeof client.emails.send>[0],
        { idempotencyKey: email.messageId, signal: AbortSignal.timeout(options.timeoutMs) } as never,
      );
      if (data?.id) return { providerMessageId: data.id, pace: paceFromHeaders(headers) };
      throw resendError(error, headers);
    },
    batchSize: RESEND_BATCH_SIZE,
    async sendEmailBatch(emails: OutgoingEmail[]) {
      // permissive: a refused email is reported by its index and the others are sent; the key is derived from the
      // message ids, so a repeat of the same batch after a lost answer is answered from Resend's record, not resent
      const idempotencyKey = `batch-${createHash('sha256')
        .update(emails.map((e) => e.messageId).join(','))
        .digest('hex')
        .slice(0, 48)}`;
      const { data, error, headers } = await client.batch.send(
        emails.map(resendEmailOf) as Parameters<typeof client.batch.send>[0],
        {
          idempotencyKey,
          batchValidation: 'permissive',
          signal: AbortSignal.timeout(options.timeoutMs),
        } as never,
      );
      if (!data) throw resendError(error, headers);
      const refused = new Map(((data as { errors?: { index: number; message: string }[] }).errors ?? []).map((e) => [e.index, e.message]));
      let next = 0;
      const results: BatchItemResult[] = emails.map((_, index) => {
        const message = refused.get(index);
        if (message !== undefined) {
          return { error: new ProviderError('resend', `Resend refused the email: ${message.slice(0, 300)}`, { isRetryable: false, status: 422 }) };
        }
        // the ids of the accepted emails come in order, without the refused ones
        const id = data.data[next++]?.id;
        return id ? { providerMessageId: id } : { error: new ProviderError('resend', 'Resend answered the batch without this email', { isRetryable: true }) };
      });
      return { results, pace: paceFromHeaders(headers) };
    },
  };
}
