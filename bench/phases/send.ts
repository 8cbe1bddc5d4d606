// message.send: the floor server (bench/floor/floor-api.ts), then the real API, each alone on the machine, same body,
// same connections; the API's peak RSS under this load is the memory figure.
import { BATCH_BODY, BATCH_CONNECTIONS, BATCH_SIZE } from './batch.ts';
import { freePort, load, progress, sampleRss, startProcess, stopProcess, type Api, type Bench, type LoadResult } from '../harness.ts';

export const SEND_CONNECTIONS = 50;
export const SEND_BODY = JSON.stringify({ channelType: 'email', to: 'bench@example.com', subject: 'Bench', text: 'Hello from the benchmark' });

/**
 * The floor's single sends (POST /send with the same key and body as the API gets), then its batches of 100
 * (POST /send-batch, the body and connections of the API's batch phase): the reference for what a batch can gain.
 */
export async function measureFloor(bench: Bench, apiKey: string): Promise<{ send: LoadResult; batch: LoadResult & { messagesPerSecond: number } }> {
  const port = await freePort();
  const floor = startProcess('floor-api', 'bench/floor/floor-api.ts', { ...bench.env, REDIS_PREFIX: bench.prefix('floor-api'), PORT: String(port) });
  const headers = { authorization: `Bearer ${apiKey}` };
  try {
    await new Promise((resolve) => floor.once('message', resolve));
    progress(`floor: POST /send, ${SEND_CONNECTIONS} connections, ${bench.seconds} s`);
    const send = await load({ url: `http://127.0.0.1:${port}/send`, headers, body: SEND_BODY, connections: SEND_CONNECTIONS, seconds: bench.seconds });
    progress(`floor: POST /send-batch (${BATCH_SIZE} per request), ${BATCH_CONNECTIONS} connections, ${bench.seconds} s`);
    const batch = await load({ url: `http://127.0.0.1:${port}/send-batch`, headers, body: BATCH_BODY, connections: BATCH_CONNECTIONS, seconds: bench.seconds, timeoutSeconds: 60 });
    return { send, batch: { ...batch, messagesPerSecond: batch.requestsPerSecond * BATCH_SIZE } };
  } finally {
    await stopProcess(floor);
  }
}

/** message.send on the real API (sandbox key, rate limit raised), with the API's peak RSS meanwhile. */
export async function measureApiSend(bench: Bench, api: Api, apiKey: string): Promise<LoadResult & { peakRssMiB: number }> {
  progress(`api: POST /v1/messages, ${SEND_CONNECTIONS} connections, ${bench.seconds} s`);
  const rss = sampleRss(api.child.pid!);
  const result = await loadApiSend(api, apiKey, bench.seconds);
  return { ...result, peakRssMiB: rss.stop() };
}

/** The send load on `api` for `seconds`, after the harness's warm-up unless `warmupSeconds` says otherwise. */
export function loadApiSend(api: Api, apiKey: string, seconds: number, warmupSeconds?: number): Promise<LoadResult> {
  return load({ url: `${api.url}/v1/messages`, headers: { authorization: `Bearer ${apiKey}` }, body: SEND_BODY, connections: SEND_CONNECTIONS, seconds, warmupSeconds });
}
