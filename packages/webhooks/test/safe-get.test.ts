import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCertificate } from '@tidings/testing';
import { fetchSafely, FetchFailedError, type Resolver } from '../src/index.ts';

// A throwaway certificate for `files.test`, made for this run (no key is kept in the repository).
const { cert, key } = makeTestCertificate('files.test');

const server = https.createServer({ cert, key }, (req, res) => {
  if (req.url === '/file') return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(5000, 9));
  if (req.url === '/big') return void res.writeHead(200).end(Buffer.alloc(20_000));
  if (req.url === '/moved') return void res.writeHead(302, { location: 'https://files.test/file' }).end();
  if (req.url === '/slow') return; // never answers
  res.writeHead(Number(req.url!.slice(1))).end('no');
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://files.test:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
});

const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const options = { allowLoopback: true, requireHttps: true, resolve, ca: cert, timeoutMs: 1000, maxBytes: 10_000 };
const failure = async (promise: Promise<unknown>) => {
  try {
    const { body } = (await promise) as { body: NodeJS.ReadableStream };
    for await (const _ of body) void _;
  } catch (error) {
    expect(error).toBeInstanceOf(FetchFailedError);
    return { message: (error as Error).message, isRetryable: (error as FetchFailedError).isRetryable };
  }
  throw new Error('expected the fetch to fail');
};

describe('fetchSafely', () => {
  it('streams the body of a 2xx from the pinned address, with its content type', async () => {
    const { body, contentType } = await fetchSafely(`${base}/file`, options);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(Buffer.alloc(5000, 9));
    expect(contentType).toBe('image/png');
  });

  it('says which failures are worth retrying: 5xx, 429 and timeouts are; 4xx, redirects, refusals and oversize are not', async () => {
    expect(await failure(fetchSafely(`${base}/503`, options))).toEqual({ message: 'HTTP 503', isRetryable: true });
    expect(await failure(fetchSafely(`${base}/429`, options))).toEqual({ message: 'HTTP 429', isRetryable: true });
    expect(await failure(fetchSafely(`${base}/slow`, options))).toEqual({ message: 'timeout: not complete within 1000 ms', isRetryable: true });
    expect(await failure(fetchSafely(`${base}/404`, options))).toEqual({ message: 'HTTP 404', isRetryable: false });
    expect(await failure(fetchSafely(`${base}/moved`, options))).toEqual({ message: 'redirect (302) not followed', isRetryable: false });
    expect(await failure(fetchSafely(`${base}/big`, options))).toEqual({ message: 'larger than 10000 bytes', isRetryable: false });
    expect(await failure(fetchSafely(`${base}/file`, { ...options, allowLoopback: false }))).toEqual({
      message: 'refused: url: files.test resolves to a non-public address (loopback)',
      isRetryable: false,
    });
  });
});
