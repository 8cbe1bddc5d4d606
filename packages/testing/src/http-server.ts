import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

export type RunningServer = { url: string; port: number; close(): Promise<void> };

/**
 * Serves a fetch handler (a Hono app's `fetch`) over real HTTP on 127.0.0.1 and a free port. Close it in afterAll.
 * @example const server = await serveHttp(app.fetch); const tidings = new Tidings({ baseUrl: `${server.url}/v1`, apiKey });
 */
export async function serveHttp(fetch: (request: Request) => Response | Promise<Response>): Promise<RunningServer> {
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // keep-alive sockets of a client would hold close() open; end them
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
