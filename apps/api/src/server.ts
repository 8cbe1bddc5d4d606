// The API process: `node apps/api/dist/server.js` (built) or `tsx apps/api/src/server.ts`, configured only by the environment.
import './tracing.ts'; // first: see tracing.ts
import { openDeps } from '@tidings/bootstrap';
import { runProcess, serveHttp } from '@tidings/runtime';
import { createApp } from './app.ts';

// On SIGTERM the server stops accepting and the requests in flight are answered before the pools close.
// /metrics is served on the ops port only (API_METRICS_PORT), never on the public one.
runProcess('api', {
  open: (config) => openDeps(config, 'api'),
  opsPort: (config) => config.apiMetricsPort,
  stopWithinMs: () => 15_000,
  start: (deps) => serveHttp(createApp(deps).fetch, deps.config.apiPort),
});
