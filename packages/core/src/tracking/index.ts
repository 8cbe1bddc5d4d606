export * from './tracking-token.ts';
export * from './track-html.ts';
export * from './tracked-html.ts';
