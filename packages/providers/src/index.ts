export { ProviderError, isRetryableStatus } from './provider-error.ts';
export * from './domain-provider.ts';
export * from './number-provider.ts';
export { createResendDomainProvider, qualifyName } from './resend-domain.provider.ts';
export { createSandboxDomainProvider, SANDBOX_MAIL_HOST } from './sandbox-domain.provider.ts';
export { createTelnyxNumberProvider } from './telnyx-number.provider.ts';
export { createSandboxNumberProvider, describeSandboxNumber } from './sandbox-number.provider.ts';
export { domainProviderFor, numberProviderFor, type KeyMode } from './select-providers.ts';
