// message.send with tracing on: a second API process exporting every span (OTLP/HTTP) to a local collector that
// reads and discards them, against the same load as the untraced API of the same run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi, stopProcess, type Bench } from '../harness.ts';
import { measureApiSend } from './send.ts';

/** An OTLP/HTTP endpoint on loopback that answers every export with 200 and keeps nothing. */
async function startDiscardingCollector(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The API's message.send with every request traced (sampler always on, the default). */
export async function measureTracedSend(bench: Bench, apiKey: string) {
  const collector = await startDiscardingCollector();
  const api = await startApi({ ...bench, env: { ...bench.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
  try {
    return await measureApiSend(bench, api, apiKey);
  } finally {
    await stopProcess(api.child);
    await collector.close();
  }
}
