export * from './signing.ts';
export * from './secret-box.ts';
export * from './address-policy.ts';
export * from './safe-url.ts';
export * from './safe-post.ts';
export * from './safe-get.ts';
