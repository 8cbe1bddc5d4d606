export { z } from './z.ts';
export * from './common.ts';
export * from './api-keys.ts';
export * from './email-domains.ts';
export * from './phone-numbers.ts';
export * from './webhooks.ts';
export * from './contacts.ts';
export * from './templates.ts';
export * from './segments.ts';
