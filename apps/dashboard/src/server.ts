// The dashboard process: `node apps/dashboard/dist/server.js` (built) or `tsx apps/dashboard/src/server.ts`.
import './tracing.ts'; // first: see tracing.ts
import { openDeps } from '@tidings/bootstrap';
import { runProcess, serveHttp } from '@tidings/runtime';
import { createDashboard } from './app.ts';

runProcess('dashboard', {
  open: (config) => openDeps(config, 'dashboard'),
  opsPort: (config) => config.dashboardMetricsPort, // /metrics tells about traffic: never on the public port
  stopWithinMs: () => 15_000,
  start: (deps) => serveHttp(createDashboard(deps).fetch, deps.config.dashboardPort),
});
