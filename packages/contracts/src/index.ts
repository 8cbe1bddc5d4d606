export { z } from './z.ts';
export * from './schemas.ts';
export * from './operation.ts';
export * from './operations/index.ts';
export * from './resend-compatible.ts';
