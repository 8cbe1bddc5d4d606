import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';

export type RecordedRequest = { method: string; path: string; headers: Record<string, string>; body: any; at: number };

/** What the next matching requests get instead of a normal answer. */
export type Fault =
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  // an answer no client can read as the API's (a gateway's HTML page, a cut-off body), whatever its status
  | { kind: 'text'; status: number; body: string; contentType?: string }
  | { kind: 'hang' }; // never answers: the client's timeout fires

type FaultRule = { remaining: number; fault: Fault; matches: (r: RecordedRequest) => boolean };

export type FakeServer = {
  url: string;
  /** Every request received, in order (faulted ones too). */
  requests: RecordedRequest[];
  /** The next `count` requests matching `path` (a prefix, or every path when absent) get `fault`. */
  failNext(count: number, fault: Fault, path?: string): void;
  /** From now on each request fails with probability `rate`, with one of `faults` (for fault-injection runs). */
  failRandomly(rate: number, faults: Fault[]): void;
  reset(): void;
  close(): Promise<void>;
};

/**
 * Serves `routes` on 127.0.0.1 on a free port, recording every request and injecting faults on demand. The fake
 * provider servers build on it.
 * @example const fake = await startFakeServer(routes); fake.failNext(1, { kind: 'status', status: 500 });
 */
export async function startFakeServer(routes: Hono): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let rules: FaultRule[] = [];
  let random: { rate: number; faults: Fault[] } | null = null;
  const hanging = new Set<() => void>();

  const app = new Hono();
  app.use('*', async (c, next) => {
    const text = await c.req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const recorded: RecordedRequest = { method: c.req.method, path: c.req.path, headers: Object.fromEntries(c.req.raw.headers), body, at: Date.now() };
    requests.push(recorded);
    const rule = rules.find((r) => r.remaining > 0 && r.matches(recorded));
    let fault = rule?.fault;
    if (rule) rule.remaining -= 1;
    if (!fault && random && Math.random() < random.rate) fault = random.faults[Math.floor(Math.random() * random.faults.length)];
    if (fault?.kind === 'hang') {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return c.body(null, 504);
    }
    if (fault?.kind === 'text') return c.body(fault.body, fault.status as 200, { 'content-type': fault.contentType ?? 'text/html' });
    if (fault?.kind === 'status') {
      return c.json(fault.body ?? { message: `injected ${fault.status}`, name: 'injected_fault' }, fault.status as 500, fault.headers);
    }
    await next();
  });
  app.route('/', routes);

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(count, fault, path) {
      rules.push({ remaining: count, fault, matches: (r) => !path || r.path.startsWith(path) });
    },
    failRandomly(rate, faults) {
      random = rate > 0 ? { rate, faults } : null;
    },
    reset() {
      requests.length = 0;
      rules = [];
      random = null;
    },
    async close() {
      for (const release of hanging) release();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
