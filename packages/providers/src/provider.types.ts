import type { Readable } from 'node:stream';
import type { EmailProviderName, SmsProviderName } from '@tidings/config';
import type { ProviderError, ProviderPace } from './provider-error.ts';

export type { EmailProviderName, SmsProviderName } from '@tidings/config';

export type { KeyMode } from './key-mode.ts';

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
  /** The To recipient, or every one of several (one message to all of them). */
  to: string | string[];
  subject: string;
  /** The Date header where the provider takes one (SMTP): when the message was accepted, so its source can be rebuilt. */
  date?: Date;
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

/** A provider's answer to one send, with what it said about its limit (`pace`) when it says (Resend's headers). */
export type ProviderAccepted = { providerMessageId: string; pace?: ProviderPace };

/** One email's outcome in a batch call: its provider id, or the error that refused this email only. */
export type BatchItemResult = { providerMessageId: string } | { error: ProviderError };

/** Sends email; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface EmailProvider extends SendingProvider<EmailProviderName> {
  sendEmail(email: OutgoingEmail): Promise<ProviderAccepted>;
  /**
   * Where the provider has a batch endpoint (Resend's `/emails/batch`): up to `batchSize` emails without attachments
   * in one call, each result in the order given. Throws ProviderError when the call as a whole failed.
   */
  sendEmailBatch?(emails: OutgoingEmail[]): Promise<{ results: BatchItemResult[]; pace?: ProviderPace }>;
  readonly batchSize?: number;
  /** What the provider account says it may send per second (SES's MaxSendRate), read now and then; undefined: unknown. */
  maxSendRate?(): Promise<number | undefined>;
}

/** Sends SMS; throws ProviderError (retryable or not) when the provider does not accept it. */
export interface SmsProvider extends SendingProvider<SmsProviderName> {
  sendSms(sms: OutgoingSms): Promise<ProviderAccepted>;
}
