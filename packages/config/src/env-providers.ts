// The environment's providers: which ones send email and SMS, in which order, their accounts, pace and circuit.
import { z } from 'zod';
import { isRegExp } from './env-parts.ts';

export const EMAIL_PROVIDER_NAMES = ['resend', 'smtp', 'ses', 'sandbox'] as const;
export const SMS_PROVIDER_NAMES = ['telnyx', 'twilio', 'sandbox'] as const;
export type EmailProviderName = (typeof EMAIL_PROVIDER_NAMES)[number];
export type SmsProviderName = (typeof SMS_PROVIDER_NAMES)[number];

/** A comma list of distinct provider names out of `names`. */
function providerList<const T extends readonly string[]>(names: T) {
  return z
    .string()
    .transform((v) => v.split(',').map((name) => name.trim()))
    .pipe(
      z
        .array(z.enum(names))
        .min(1)
        .refine((list) => new Set(list).size === list.length, 'a provider is listed twice'),
    );
}

/** The provider settings: their accounts, order, pace and circuit, and the answers to inbound SMS keywords. */
export const providersEnv = {
  RESEND_API_KEY: z.string().min(1).optional(),
  RESEND_BASE_URL: z.url().optional(),
  TELNYX_API_KEY: z.string().min(1).optional(),
  TELNYX_BASE_URL: z.url().optional(),
  TELNYX_PUBLIC_KEY: z.string().min(1).optional(),
  RESEND_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Numbers ordered through Tidings are put on this Telnyx messaging profile, so they can send at once. */
  TELNYX_MESSAGING_PROFILE_ID: z.string().min(1).optional(),
  // ---- providers: which ones, in which order, and their settings
  /** Email providers in the order they are tried (`resend`, `smtp`, `ses`, `sandbox`); see providerLists below. */
  EMAIL_PROVIDERS: providerList(EMAIL_PROVIDER_NAMES).optional(),
  /** SMS providers in the order they are tried (`telnyx`, `twilio`, `sandbox`). */
  SMS_PROVIDERS: providerList(SMS_PROVIDER_NAMES).optional(),
  /** `smtps://user:pass@host:465` (TLS) or `smtp://user:pass@host:587` (STARTTLS when the server offers it). */
  SMTP_URL: z
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), 'expected smtp:// or smtps://')
    .optional(),
  /** Connections kept open to the SMTP server. */
  SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  // ---- the providers' pace: one shared limiter per provider account (see docs/sending.md)
  /** Requests per second to Resend, shared by every send-worker (Resend's default limit is 2 per team). */
  RESEND_RATE_PER_SECOND: z.coerce.number().positive().max(10_000).default(2),
  /** Emails per second through SES; unset: the account's MaxSendRate (GetAccount), read at the first send and every 10 minutes. */
  SES_MAX_SEND_RATE: z.coerce.number().positive().max(100_000).optional(),
  /** Emails per second through the SMTP relay; unset: not paced. */
  SMTP_RATE_PER_SECOND: z.coerce.number().positive().max(100_000).optional(),
  /** A bulk send waits in the worker for its provider's slot at most this long; beyond, it waits as a delayed job. */
  PACE_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  SES_REGION: z.string().min(1).optional(),
  SES_ACCESS_KEY_ID: z.string().min(1).optional(),
  SES_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Another SES endpoint (a VPC endpoint, or a local fake in tests); the region's public one when unset. */
  SES_ENDPOINT: z.url().optional(),
  SES_CONFIGURATION_SET: z.string().min(1).optional(),
  /** Where SNS certificates and subscription confirmations may be fetched from: a regular expression over the URL. */
  SNS_URL_PATTERN: z.string().min(1).refine(isRegExp, 'expected a regular expression').default('^https://sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?/'),
  /** Only notifications of this SNS topic are accepted, when set. */
  SES_SNS_TOPIC_ARN: z.string().min(1).optional(),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Another Twilio API origin (a local fake in tests); api.twilio.com when unset. */
  TWILIO_BASE_URL: z.url().optional(),
  /** Consecutive failures after which a provider is skipped while another one is available. */
  PROVIDER_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** How long a provider is skipped before it is tried again. */
  PROVIDER_CIRCUIT_COOLDOWN_MS: z.coerce.number().int().min(100).default(30_000),
  /** The answers to an inbound SMS STOP, START and HELP (or INFO) of every number without its own `replies`; unset:
   * a default naming the organization. */
  SMS_STOP_REPLY: z.string().trim().min(1).max(1600).optional(),
  SMS_START_REPLY: z.string().trim().min(1).max(1600).optional(),
  SMS_HELP_TEXT: z.string().trim().min(1).max(1600).optional(),
};
