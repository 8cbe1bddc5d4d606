export { createApp, type App } from './app.ts';
