import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the receiver answers a request. */
export type ReceiverReply =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Answers 200 after `delayMs` (past the sender's timeout, it is a timeout). */
  | { kind: 'slow'; delayMs: number }
  /** Never answers until the receiver closes. */
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string; status?: number }
  /** A 200 whose body is `bytes` long, streamed. */
  | { kind: 'huge'; bytes: number };

/** A request as it arrived: the raw body text, exactly the bytes that were signed. */
export type ReceivedRequest = { method: string; path: string; headers: Record<string, string>; body: string; at: number };

export type WebhookReceiver = {
  url: string;
  host: string;
  port: number;
  requests: ReceivedRequest[];
  /** The next requests get these replies, in order; after them the default reply. */
  replyNext(...replies: ReceiverReply[]): void;
  /** The reply once the queued ones are used up (initially 200). */
  setDefault(reply: ReceiverReply): void;
  /** Resolves when `count` requests have arrived in total; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  reset(): void;
  close(): Promise<void>;
};

/**
 * A real HTTP endpoint for webhook deliveries on a loopback address (127.0.0.1 unless `host`, e.g. 127.0.0.2 as a
 * second, "internal" receiver) and a free port (or `port`, to share one with a receiver on another address).
 * It records every request and answers as told: 200, any status,
 * slow, hanging, a redirect or a huge body.
 * @example const receiver = await startWebhookReceiver(); receiver.replyNext({ kind: 'status', status: 500 });
 */
export async function startWebhookReceiver(options: { host?: string; port?: number } = {}): Promise<WebhookReceiver> {
  const host = options.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  let queue: ReceiverReply[] = [];
  let fallback: ReceiverReply = { kind: 'status', status: 200, body: '{"ok":true}' };
  const waiters = new Set<() => void>();
  const pending = new Set<NodeJS.Timeout>();
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const wake of waiters) wake();
      answer(queue.shift() ?? fallback, res);
    });
  });

  function answer(reply: ReceiverReply, res: http.ServerResponse) {
    switch (reply.kind) {
      case 'status':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? '');
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          pending.delete(timer);
          if (!res.destroyed) res.writeHead(200).end('late');
        }, reply.delayMs);
        pending.add(timer);
        return;
      }
      case 'hang':
        hanging.add(res);
        return;
      case 'redirect':
        res.writeHead(reply.status ?? 302, { location: reply.location }).end();
        return;
      case 'huge': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const block = Buffer.alloc(16 * 1024, 'x');
        let left = reply.bytes;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            const part = block.subarray(0, Math.min(block.length, left));
            left -= part.length;
            if (!res.write(part)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}`,
    host,
    port,
    requests,
    replyNext: (...replies) => void queue.push(...replies),
    setDefault: (reply) => {
      fallback = reply;
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          cleanup();
          resolve(requests);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    reset() {
      requests.length = 0;
      queue = [];
    },
    async close() {
      for (const timer of pending) clearTimeout(timer);
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
