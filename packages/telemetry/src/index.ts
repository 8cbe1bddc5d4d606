export * from './spans.ts';
export * from './within.ts';
