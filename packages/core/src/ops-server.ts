import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deps } from './deps.ts';
import { checkReadiness } from './readiness.ts';

/** A running ops server: the port it got (useful with port 0) and how to stop it. */
export type OpsServer = { port: number; close(): Promise<void> };

type Answer = { status: number; contentType: string; body: string };
const json = (status: number, body: unknown): Answer => ({ status, contentType: 'application/json', body: JSON.stringify(body) });

async function answer(deps: Pick<Deps, 'db' | 'redis' | 'metrics'>, request: IncomingMessage): Promise<Answer> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { code: 'BAD_REQUEST', message: 'Only GET is allowed here' });
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path === '/healthz') return json(200, { status: 'ok' });
  if (path === '/readyz') {
    const readiness = await checkReadiness(deps);
    return json(readiness.status === 'ready' ? 200 : 503, readiness);
  }
  if (path === '/metrics') return { status: 200, contentType: deps.metrics.registry.contentType, body: await deps.metrics.registry.metrics() };
  return json(404, { code: 'NOT_FOUND', message: 'Not found: this port serves /healthz, /readyz and /metrics' });
}

/**
 * The HTTP face of a process that has no app of its own (the workers): `/healthz` (the process answers), `/readyz`
 * (Postgres and Redis answer too) and `/metrics` (Prometheus), as the API serves them. Resolves once listening on
 * `port` (0: any free one); rejects when the port is taken. `close()` stops listening and ends idle connections.
 * @example const ops = await startOpsServer(deps, config.sendWorker.metricsPort); ... await ops.close();
 */
export async function startOpsServer(deps: Pick<Deps, 'db' | 'redis' | 'metrics' | 'logger'>, port: number): Promise<OpsServer> {
  const server = createServer((request, response) => {
    answer(deps, request)
      .catch((error: unknown) => {
        deps.logger.error({ err: error, path: request.url }, 'ops request failed');
        return json(500, { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
      })
      .then(({ status, contentType, body }) => response.writeHead(status, { 'Content-Type': contentType }).end(request.method === 'HEAD' ? undefined : body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
