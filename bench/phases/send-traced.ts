// message.send with tracing on: a second API process exporting every span (OTLP/HTTP) to a local collector that
// reads and discards them, against the untraced API of the same run, the two loaded in turns.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { progress, ratio, startApi, stopProcess, type Api, type Bench, type LoadResult } from '../harness.ts';
import { loadApiSend, SEND_CONNECTIONS } from './send.ts';

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

export type TracedSend = { off: LoadResult; on: LoadResult; ratio: number };

/** Several equal loads of one API as one: the mean rate, the mean of their percentiles, the errors summed. */
function combined(runs: LoadResult[]): LoadResult {
  const mean = (pick: (r: LoadResult) => number) => Math.round(runs.reduce((sum, r) => sum + pick(r), 0) / runs.length);
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return { requestsPerSecond: mean((r) => r.requestsPerSecond), p50: mean((r) => r.p50), p99: mean((r) => r.p99), errors: runs.reduce((sum, r) => sum + r.errors, 0), statusCodes };
}

/**
 * The API's message.send with every request traced (sampler always on, the default) against `untraced`, the same
 * run's API with tracing off: loaded in turns, off-on-on-off, half of BENCH_SECONDS each, so that what drifts during
 * the phase (the tables growing, autovacuum, the machine's other load) weighs on both alike. Run one after the
 * other, the second API always met the first one's rows, and the ratio moved by more than the goal's 10 %.
 */
export async function measureTracedSend(bench: Bench, untraced: Api, apiKey: string): Promise<TracedSend> {
  const collector = await startDiscardingCollector();
  const traced = await startApi({ ...bench, env: { ...bench.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
  const seconds = Math.max(1, Math.round(bench.seconds / 2));
  const turn = (api: Api, name: string, isFirst: boolean) => {
    progress(`api, tracing ${name}: POST /v1/messages, ${SEND_CONNECTIONS} connections, ${seconds} s`);
    return loadApiSend(api, apiKey, seconds, isFirst ? undefined : 0);
  };
  try {
    const off1 = await turn(untraced, 'off', true);
    const on1 = await turn(traced, 'on', true);
    const on2 = await turn(traced, 'on', false);
    const off2 = await turn(untraced, 'off', false);
    const off = combined([off1, off2]);
    const on = combined([on1, on2]);
    return { off, on, ratio: ratio(on.requestsPerSecond, off.requestsPerSecond) };
  } finally {
    await stopProcess(traced.child);
    await collector.close();
  }
}
