export * from './broadcast.mapper.ts';
export * from './broadcast.service.ts';
export * from './fan-out.ts';
export * from './unsubscribe-token.ts';
export * from './unsubscribe.ts';
export * from './broadcast-preview.ts';
export * from './broadcast-retry.ts';
export * from './broadcast-links.ts';
