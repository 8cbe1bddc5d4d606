export * from './config.ts';
export { EMAIL_PROVIDER_NAMES, SMS_PROVIDER_NAMES, type EmailProviderName, type SmsProviderName } from './env-schema.ts';
export { ConfigError } from './config-error.ts';
export { loadEnvFile } from './env-file.ts';
export { productionProblems, type ProductionProblem } from './production.ts';
