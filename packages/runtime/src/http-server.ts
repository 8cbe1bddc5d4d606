import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server: the port it got (useful with port 0) and how to stop it. */
export type RunningServer = { port: number; close(): Promise<void> };

/** The `fetch` of a Hono app (or anything that answers a Request). */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * Listens on `port` (on `host` when given, else every address) and resolves once listening; rejects with the listen
 * error (EADDRINUSE: port taken).
 * `close()` stops accepting, ends idle keep-alive connections, and resolves when the requests in flight are answered.
 * @example const running = await listen(createServer(handler), 3000);
 */
export async function listen(server: Server, port: number, host?: string): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // a keep-alive connection between requests would hold close() open until its timeout
        server.closeIdleConnections();
      }),
  };
}

/**
 * Serves an HTTP app (the API, the dashboard) on `port`; `close()` drains it: no new connections, in-flight requests
 * finish. What `runProcess` stops first on SIGTERM.
 * @example runProcess('api', { ..., start: (deps) => serveHttp(createApp(deps).fetch, deps.config.apiPort) });
 */
export function serveHttp(fetch: FetchHandler, port: number, host?: string): Promise<RunningServer> {
  return listen(createAdaptorServer({ fetch }) as Server, port, host);
}
