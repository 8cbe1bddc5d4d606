import http from 'node:http';
import https from 'node:https';
import { pipeline, Transform, type Readable } from 'node:stream';
import { pinnedLookup } from './safe-post.ts';
import { checkWebhookUrl, UnsafeUrlError, type CheckedTarget, type UrlPolicy } from './safe-url.ts';

/** A download that did not work; `isRetryable` for a timeout, a 5xx or a dropped connection. */
export class FetchFailedError extends Error {
  constructor(
    message: string,
    readonly isRetryable: boolean,
  ) {
    super(message);
    this.name = 'FetchFailedError';
  }
}

export type FetchOptions = UrlPolicy & {
  /** For the whole download, answer and body. */
  timeoutMs: number;
  /** More bytes than this fail the download (not retryable). */
  maxBytes: number;
  /** Trusted certificate authorities instead of the system's (tests with their own CA). */
  ca?: string;
};

/**
 * GETs a URL with the webhooks' SSRF rules (every resolved address public, the socket pinned to the checked address,
 * no redirects followed) and answers once the status is known: the body as a stream that fails with
 * FetchFailedError past `maxBytes` or `timeoutMs`, so the caller never holds more than it reads. Throws
 * FetchFailedError for a refused URL or a 4xx (not retryable), a 5xx, timeout or connection error (retryable).
 * @example const { body } = await fetchSafely('https://example.com/logo.png', { allowLoopback: false, requireHttps: true, timeoutMs: 15000, maxBytes: 40 << 20 });
 */
export async function fetchSafely(rawUrl: string, options: FetchOptions): Promise<{ body: Readable; contentType: string | null }> {
  let target: CheckedTarget;
  try {
    target = await checkWebhookUrl(rawUrl, options);
  } catch (error) {
    throw new FetchFailedError(`refused: ${error instanceof UnsafeUrlError ? error.message : 'the URL could not be checked'}`, false);
  }
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new FetchFailedError(`timeout: not complete within ${options.timeoutMs} ms`, true)), options.timeoutMs);
    let body: Transform | null = null;
    const fail = (error: FetchFailedError) => {
      clearTimeout(timer);
      request.destroy();
      if (body) body.destroy(error);
      else reject(error);
    };
    const request = client.get(
      target.url,
      { lookup: pinnedLookup(target), agent: false, ...(options.ca ? { ca: options.ca } : {}), headers: { 'user-agent': 'Tidings/1.0' } },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          response.resume();
          const reason = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
          return fail(new FetchFailedError(reason, status >= 500 || status === 408 || status === 429));
        }
        const declared = Number(response.headers['content-length']);
        if (declared > options.maxBytes) {
          response.resume();
          return fail(new FetchFailedError(`larger than ${options.maxBytes} bytes`, false));
        }
        let size = 0;
        body = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            size += chunk.length;
            if (size > options.maxBytes) return callback(new FetchFailedError(`larger than ${options.maxBytes} bytes`, false));
            callback(null, chunk);
          },
          flush(callback) {
            clearTimeout(timer);
            callback();
          },
        });
        // pipeline listens for errors on both sides: a failure before the caller reads is kept for its first read
        pipeline(response, body, (error) => {
          if (error && !(error instanceof FetchFailedError)) fail(new FetchFailedError(`connection error: ${error.message}`, true));
        });
        resolve({ body, contentType: (response.headers['content-type'] as string | undefined) ?? null });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => fail(new FetchFailedError(`connection error: ${error.code ?? error.message}`, true)));
  });
}
