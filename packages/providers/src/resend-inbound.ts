import { Resend } from 'resend';
import { ProviderError, isRetryableStatus } from './provider-error.ts';

export type ReceivedEmailContent = { subject: string | null; text: string | null; html: string | null };

/**
 * The content of an email Resend received: its `email.received` callback names the email but carries no body, so
 * it is read through the SDK (`emails.receiving.get`). Throws a retryable ProviderError when Resend cannot answer
 * now (the callback then fails and Resend sends it again).
 * @example const { text, html } = await fetchResendReceivedEmail({ apiKey, baseUrl, timeoutMs: 15000 }, emailId);
 */
export async function fetchResendReceivedEmail(options: { apiKey: string; baseUrl?: string; timeoutMs: number }, emailId: string): Promise<ReceivedEmailContent> {
  const client = new Resend(options.apiKey, { baseUrl: options.baseUrl });
  const { data, error } = await client.emails.receiving.get(emailId, undefined, { signal: AbortSignal.timeout(options.timeoutMs) } as never);
  if (data) return { subject: data.subject ?? null, text: data.text ?? null, html: data.html ?? null };
  const status = typeof error?.statusCode === 'number' ? error.statusCode : undefined;
  throw new ProviderError('resend', `Resend could not return received email: ${error?.name ?? 'unknown_error'}`, {
    isRetryable: status === undefined || isRetryableStatus(status),
    status,
  });
}
