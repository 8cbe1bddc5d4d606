import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a child process that must be told its port up front.
 * @example const port = await freePort(); spawn(..., { env: { API_PORT: String(port) } });
 */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
