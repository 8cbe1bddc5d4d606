/** What a provider needs to send one email. `messageId` doubles as the provider's idempotency key. */
export type OutgoingEmail = {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  /** Extra header fields (a broadcast's List-Unsubscribe and List-Unsubscribe-Post). */
  headers?: Record<string, string>;
};
/** What a provider needs to send one SMS. */
export type OutgoingSms = { messageId: string; from: string; to: string; body: string };

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
