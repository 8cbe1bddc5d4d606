import type { EmailProviderName, SmsProviderName } from '@tidings/config';

export type { EmailProviderName, SmsProviderName } from '@tidings/config';

/** Which kind of API key made a request: `test` keys never reach a real provider. */
export type KeyMode = 'live' | 'test';

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

export type ProviderName = EmailProviderName | SmsProviderName;

/** What every sending provider tells about itself. */
type SendingProvider<Name> = {
  readonly name: Name;
  /**
   * Whether a repeated call with the same message id is recognised as the same send (Resend's Idempotency-Key, the
   * sandbox's derived id). Without it a repeat after a lost answer may reach the recipient twice.
   */
  readonly dedupesRepeats: boolean;
};

/** Sends email; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface EmailProvider extends SendingProvider<EmailProviderName> {
  sendEmail(email: OutgoingEmail): Promise<{ providerMessageId: string }>;
}

/** Sends SMS; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface SmsProvider extends SendingProvider<SmsProviderName> {
  sendSms(sms: OutgoingSms): Promise<{ providerMessageId: string }>;
}
