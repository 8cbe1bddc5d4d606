export { ProviderError, isRetryableStatus, isRateLimitStatus, paceFromHeaders, type ProviderPace } from './provider-error.ts';
export * from './domain-provider.ts';
export * from './number-provider.ts';
export { createTwilioNumberProvider } from './twilio-number.provider.ts';
export { createResendDomainProvider, qualifyName } from './resend-domain.provider.ts';
export { createSesDomainProvider } from './ses-domain.provider.ts';
export { createSandboxDomainProvider, SANDBOX_MAIL_HOST } from './sandbox-domain.provider.ts';
export { createTelnyxNumberProvider } from './telnyx-number.provider.ts';
export { createSandboxNumberProvider, describeSandboxNumber, isFictionalNumber } from './sandbox-number.provider.ts';
export { createSnsCertificateCache, type SnsCertificateCache } from './callbacks/sns-certificates.ts';
export { buildProviders, SNS_CERTIFICATE_CACHE_SIZE, twilioCallbackUrl, type Providers, type ProviderOverrides, type ProviderChoice } from './build-providers.ts';
export { createCircuitBreaker, type CircuitBreaker, type CircuitState } from './circuit-breaker.ts';
export type {
  EmailProvider,
  SmsProvider,
  ProviderAccepted,
  BatchItemResult,
  OutgoingEmail,
  OutgoingSms,
  OutgoingAttachment,
  ProviderName,
  EmailProviderName,
  SmsProviderName,
  KeyMode,
} from './provider.types.ts';
export { readAttachment } from './read-attachment.ts';
export { createResendProvider, RESEND_BATCH_SIZE, RESEND_MESSAGE_TAG } from './resend.provider.ts';
export { createTelnyxProvider, RECIPIENT_STOPPED, TELNYX_STOPPED_ERROR_CODE } from './telnyx.provider.ts';
export { createSandboxProvider, sandboxOutcomeFor, sandboxEngagementFor, type SandboxOutcome } from './sandbox.provider.ts';
export {
  CallbackMalformedError,
  CallbackSignatureError,
  CallbackStaleError,
  type CallbackOutcome,
  type CallbackEngagement,
  type CallbackInbound,
  type CallbackReport,
} from './callbacks/callback-outcome.ts';
export { fetchResendReceivedEmail, type ReceivedEmailContent } from './resend-inbound.ts';
export { createSmtpProvider, smtpMessageId, SMTP_MESSAGE_ID_HEADER } from './smtp.provider.ts';
export { composeEmailSource, mailOptionsOf } from './email-source.ts';
export { createSesProvider, SES_MESSAGE_TAG } from './ses.provider.ts';
export { createTwilioProvider, createTwilioClient } from './twilio.provider.ts';
export { verifyResendCallback } from './callbacks/resend.callback.ts';
export { verifyTelnyxCallback } from './callbacks/telnyx.callback.ts';
export { verifyTwilioCallback } from './callbacks/twilio.callback.ts';
export { verifySesCallback, confirmSnsSubscription, SNS_MAX_AGE_MS, type SesCallback } from './callbacks/ses.callback.ts';
export { mayReachProvider, modeOfProvider, sendsToSandbox } from './key-mode.ts';
