import { createApp } from './app.ts';
import { runServer } from './run-server.ts';

runServer('api', { port: (config) => config.apiPort, build: createApp });
