// message.send with one 1 MiB attachment (base64 in the body), 10 connections: what the bytes cost the API, and its
// peak RSS meanwhile (each request holds the attachment's bytes once, decoded, on their way to the store).
import { randomBytes } from 'node:crypto';
import { load, progress, sampleRss, type Api, type Bench, type LoadResult } from '../harness.ts';

export const ATTACHMENT_CONNECTIONS = 10;
export const ATTACHMENT_BYTES = 1024 * 1024;

/** message.send with a 1 MiB attachment on the real API (sandbox key), with the API's peak RSS. */
export async function measureSendWithAttachment(bench: Bench, api: Api, apiKey: string): Promise<LoadResult & { peakRssMiB: number }> {
  const body = JSON.stringify({
    channelType: 'email',
    to: 'bench@example.com',
    subject: 'Bench',
    text: 'Your file is attached',
    attachments: [{ filename: 'bench.bin', content: randomBytes(ATTACHMENT_BYTES).toString('base64') }],
  });
  progress(`api: POST /v1/messages with a 1 MiB attachment, ${ATTACHMENT_CONNECTIONS} connections, ${bench.seconds} s`);
  const rss = sampleRss(api.child.pid!);
  const result = await load({ url: `${api.url}/v1/messages`, headers: { authorization: `Bearer ${apiKey}` }, body, connections: ATTACHMENT_CONNECTIONS, seconds: bench.seconds });
  return { ...result, peakRssMiB: rss.stop() };
}
