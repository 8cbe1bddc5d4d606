export * from './topic.service.ts';
export * from './contact-topics.ts';
export * from './preferences.ts';
