// message.sendBatch of 100 on the real API: messages accepted per second. Fewer connections than the single-send
// run: each request carries 100 sends, so 10 connections already keep 1,000 messages in flight.
import { load, progress, type Api, type Bench, type LoadResult } from '../harness.ts';

export const BATCH_SIZE = 100;
export const BATCH_CONNECTIONS = 10;
/** One message.sendBatch request: 100 emails to distinct addresses. */
export const BATCH_BODY = JSON.stringify({
  messages: Array.from({ length: BATCH_SIZE }, (_, i) => ({ channelType: 'email', to: `bench${i}@example.com`, subject: 'Bench', text: 'Hello from the benchmark' })),
});

export async function measureBatch(bench: Bench, api: Api, apiKey: string): Promise<LoadResult & { messagesPerSecond: number }> {
  const headers = { authorization: `Bearer ${apiKey}` };
  // A batch answers 202 even when items fail: check once that all 100 are accepted, so the rate counts messages.
  const res = await fetch(`${api.url}/v1/messages/batch`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: BATCH_BODY });
  const answer = (await res.json()) as { errors?: unknown[] };
  if (res.status !== 202 || answer.errors?.length) throw new Error(`batch: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);

  progress(`api: POST /v1/messages/batch (${BATCH_SIZE} per request), ${BATCH_CONNECTIONS} connections, ${bench.seconds} s`);
  const result = await load({ url: `${api.url}/v1/messages/batch`, headers, body: BATCH_BODY, connections: BATCH_CONNECTIONS, seconds: bench.seconds, timeoutSeconds: 60 });
  return { ...result, messagesPerSecond: result.requestsPerSecond * BATCH_SIZE };
}
