import { serve } from '@hono/node-server';
import { ConfigError, loadConfig, type Config } from '@tidings/config';
import { openDeps, type Deps } from '@tidings/core';

/**
 * Runs one HTTP app as its own process: reads the configuration (a bad value exits 1 with the message), opens the
 * connections, listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests finish, then closes the pools.
 * @example runServer('api', { port: (config) => config.apiPort, build: createApp });
 */
export function runServer(name: string, options: { port: (config: Config) => number; build: (deps: Deps) => { fetch: (request: Request) => Response | Promise<Response> } }) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const deps = openDeps(config, name);
  const app = options.build(deps);
  const server = serve({ fetch: app.fetch, port: options.port(config) }, (info) => {
    deps.logger.info({ port: info.port }, `${name} listening on http://localhost:${info.port}`);
  });

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
