import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ConfigError } from '@tidings/config';
import { Registry } from 'prom-client';
import { checkReadiness, createLogger, serveHttp, startOpsServer, startupFailure, type Readiness } from '../src/index.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
const ready: Readiness = { status: 'ready', checks: { postgres: 'ok' } };

async function takenPort(): Promise<{ port: number; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

describe('startupFailure', () => {
  it('says a taken port in one line', async () => {
    const taken = await takenPort();
    try {
      const error = await startOpsServer({ readiness: async () => ready, metrics: { registry: new Registry() }, logger }, taken.port).catch((e: unknown) => e);
      expect(startupFailure('send-worker', error)).toBe(`send-worker: port ${taken.port} is already in use (another process listens there)`);
    } finally {
      taken.close();
    }
  });

  it('names a bad setting without a stack, and keeps the stack of anything else', () => {
    expect(startupFailure('api', new ConfigError('Invalid configuration:\n  API_PORT: expected a number'))).toBe('api: Invalid configuration:\n  API_PORT: expected a number');
    expect(startupFailure('api', new Error('boom'))).toMatch(/^api: could not start: Error: boom\n\s+at /);
  });
});

describe('checkReadiness', () => {
  it('is not ready when a probe fails or hangs past 2 s, naming which', async () => {
    const startedAt = Date.now();
    const readiness = await checkReadiness({ postgres: async () => 1, redis: () => new Promise(() => {}), other: async () => Promise.reject(new Error('down')) });
    expect(readiness).toEqual({ status: 'not ready', checks: { postgres: 'ok', redis: 'unreachable', other: 'unreachable' } });
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });
});

describe('the ops server', () => {
  it('serves /healthz, /readyz and /metrics; refuses other methods and paths', async () => {
    const registry = new Registry();
    let readiness: Readiness = ready;
    const ops = await startOpsServer({ readiness: async () => readiness, metrics: { registry }, logger }, 0);
    try {
      const url = `http://127.0.0.1:${ops.port}`;
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      readiness = { status: 'not ready', checks: { postgres: 'unreachable' } };
      const notReady = await fetch(`${url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual(readiness);
      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.headers.get('content-type')).toBe(registry.contentType);
      expect((await fetch(`${url}/healthz`, { method: 'POST' })).status).toBe(405);
      expect(await (await fetch(`${url}/elsewhere`)).json()).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining('/healthz') });
    } finally {
      await ops.close();
    }
  });
});

describe("the ops server's address (OPS_HOST)", () => {
  // 127.0.0.2 is this machine's loopback too, but not the address 127.0.0.1: what a bound address refuses, it refuses
  const answers = (port: number, host: string) =>
    fetch(`http://${host}:${port}/healthz`).then(
      (res) => res.status,
      () => 'refused',
    );

  it('listens on the given address only, or on every address with 0.0.0.0', async () => {
    const sources = { readiness: async () => ready, metrics: { registry: new Registry() }, logger };
    const local = await startOpsServer(sources, 0, '127.0.0.1');
    const open = await startOpsServer(sources, 0, '0.0.0.0');
    try {
      expect(await answers(local.port, '127.0.0.1')).toBe(200);
      expect(await answers(local.port, '127.0.0.2')).toBe('refused');
      expect(await answers(open.port, '127.0.0.2')).toBe(200);
    } finally {
      await local.close();
      await open.close();
    }
  });
});

describe('serveHttp', () => {
  it('close() lets the request in flight finish and refuses new connections', async () => {
    let release!: () => void;
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const server = await serveHttp(async () => {
      markStarted();
      await new Promise<void>((resolve) => (release = resolve));
      return new Response('done');
    }, 0);
    const answer = fetch(`http://127.0.0.1:${server.port}/slow`).then(async (r) => [r.status, await r.text()]);
    await started;
    const closed = server.close();
    await expect(fetch(`http://127.0.0.1:${server.port}/again`)).rejects.toThrow();
    release();
    expect(await answer).toEqual([200, 'done']);
    await closed;
  });
});

describe('runProcess', () => {
  it('drains and exits 0 on a SIGTERM that comes while the app is still starting (its ops port already answers)', async () => {
    const { port, close } = await takenPort();
    close();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/slow-start.ts')], {
      env: { ...process.env, OPS_PORT: String(port) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const starting = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('starting\n')) resolve();
      });
      child.once('exit', () => reject(new Error(`exited before starting: ${output}`)));
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    await starting;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    // the signal is handled before the start ends: let it end now
    child.stdin.end('go\n');
    expect(await exit).toEqual([0, null]);
    expect(output).toContain('slow-start stopped');
  }, 30_000);
});
