export { createApp, type App } from './app.ts';
export { runServer } from './run-server.ts';
