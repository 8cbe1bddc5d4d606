export { ProviderError, isRetryableStatus } from './provider-error.ts';
