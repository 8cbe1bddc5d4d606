export * from './verification.service.ts';
export { CODE_MASK } from './verification-code.ts';
export { failVerificationOfMessage } from './verification-failure.ts';
export * from './verification-stats.ts';
