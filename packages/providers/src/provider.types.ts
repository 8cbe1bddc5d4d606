import type { Readable } from 'node:stream';

/**
 * One attachment on its way to a provider: its bytes as a stream (read from the attachment store, or fetched from
 * the sender's URL), read once. A provider with a streaming transport (SMTP) pipes it; one with a JSON API reads it
 * into a buffer for that one request.
 */
export type OutgoingAttachment = { filename: string; contentType: string; contentId: string | null; content: Readable };

/** What a provider needs to send one email. `messageId` doubles as the provider's idempotency key. */
export type OutgoingEmail = {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  /** Custom header fields (the sender's, and a broadcast's List-Unsubscribe and List-Unsubscribe-Post). */
  headers?: Record<string, string>;
  attachments?: OutgoingAttachment[];
};
/** What a provider needs to send one SMS; `mediaUrls` make it an MMS. */
export type OutgoingSms = { messageId: string; from: string; to: string; body: string; mediaUrls?: string[] };

export type ProviderName = 'resend' | 'telnyx' | 'sandbox';

/** Sends email; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface EmailProvider {
  readonly name: ProviderName;
  sendEmail(email: OutgoingEmail): Promise<{ providerMessageId: string }>;
}

/** Sends SMS; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface SmsProvider {
  readonly name: ProviderName;
  sendSms(sms: OutgoingSms): Promise<{ providerMessageId: string }>;
}
