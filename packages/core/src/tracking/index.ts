export * from './tracking-token.ts';
export * from './track-html.ts';
