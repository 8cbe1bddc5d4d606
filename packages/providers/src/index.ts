export { ProviderError, isRetryableStatus } from './provider-error.ts';
export type { EmailProvider, SmsProvider, OutgoingEmail, OutgoingSms, ProviderName } from './provider.types.ts';
export { createResendProvider, RESEND_MESSAGE_TAG } from './resend.provider.ts';
export { createTelnyxProvider } from './telnyx.provider.ts';
export { createSandboxProvider, sandboxOutcomeFor, type SandboxOutcome } from './sandbox.provider.ts';
export { CallbackSignatureError, type CallbackOutcome } from './callbacks/callback-outcome.ts';
export { verifyResendCallback } from './callbacks/resend.callback.ts';
export { verifyTelnyxCallback } from './callbacks/telnyx.callback.ts';
