export { z } from './z.ts';
export * from './common.ts';
export * from './api-keys.ts';
export * from './messages.ts';
