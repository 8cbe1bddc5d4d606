import { serve } from '@hono/node-server';
import { ConfigError, loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/core';
import { createDashboard } from './app.ts';

function main() {
  const config = loadConfig();
  const deps = openDeps(config, 'dashboard');
  const app = createDashboard(deps);
  const server = serve({ fetch: app.fetch, port: config.dashboardPort }, (info) => {
    deps.logger.info({ port: info.port }, `dashboard listening on http://localhost:${info.port}`);
  });

  // SIGTERM: stop accepting, let in-flight requests finish, then close the pools.
  const shutdown = (signal: string) => {
    deps.logger.info({ signal }, 'shutting down');
    server.close(async () => {
      await deps.close();
      process.exit(0);
    });
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

try {
  main();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
