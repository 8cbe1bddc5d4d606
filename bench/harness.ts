// Shared pieces of the benchmark: child processes, free ports, autocannon runs, drains, progress lines.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Queue } from 'bullmq';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import type { Deps } from '@tidings/core';
import { migrate } from '@tidings/db';
import { recreateDatabase } from '@tidings/testing';
import { Client } from 'pg';
import type { Redis } from '@tidings/queue';

export const root = path.resolve(__dirname, '..');

/** What every phase gets from the run. */
export type Bench = {
  /** The runner's own connections to the bench database and Redis (loopback webhooks allowed). */
  deps: Deps;
  /** Environment of every child process: the bench database, a raised rate limit. */
  env: Record<string, string>;
  /** A Redis prefix for one phase of this run, so one phase's leftover jobs never reach another phase's worker. */
  prefix(phase: string): string;
  /** Seconds of each autocannon run (BENCH_SECONDS). */
  seconds: number;
};

/** The real API as a child process, shared by the phases that drive it over HTTP. */
export type Api = { url: string; child: ChildProcess };

const children = new Set<ChildProcess>();
// a phase that throws must not leave its processes running
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Prints a progress line with the elapsed time, so a long run shows where it is. */
export function progress(message: string): void {
  const seconds = (performance.now() / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** `a / b` to two decimals (0 when `b` is 0), for the ratios to the floor. */
export function ratio(a: number, b: number): number {
  return b > 0 ? Math.round((a / b) * 100) / 100 : 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a TypeScript entry as its own Node process (through tsx), with `env` on top of this process's. With
 * BENCH_CPU_PROF set, the process writes V8 CPU profiles into bench/results/profiles/<name>/ when it exits.
 */
export function startProcess(name: string, entry: string, env: Record<string, string>): ChildProcess {
  // a directory per process: tsx's loader thread writes a profile of its own beside the main thread's
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, 'bench/results/profiles', name)}`] : [];
  const child = fork(path.resolve(root, entry), [], {
    execArgv: ['--import', 'tsx', ...profile],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Starts the real API (apps/api) on a free port and waits until it answers. */
export async function startApi(bench: Bench): Promise<Api> {
  const port = await freePort();
  const child = startProcess('api', 'apps/api/src/server.ts', { ...bench.env, REDIS_PREFIX: bench.prefix('api'), API_PORT: String(port), API_METRICS_PORT: '0' });
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/healthz`);
  return { url, child };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(url, timeoutMs, async () => {
    try {
      return (await fetch(url)).ok;
    } catch {
      return false; // not listening yet
    }
  });
}

/** Waits until a worker process is connected to `queue` (BullMQ names its connections), so timing starts on a ready worker. */
export async function waitForWorker(queue: Queue, timeoutMs = 60_000): Promise<void> {
  await waitUntil(`a worker on ${queue.name}`, timeoutMs, async () => (await queue.getWorkersCount()) > 0);
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export { backendsCpuMeter, cpuSecondsOf, sampleRss } from './process-usage.ts';

export type LoadResult = {
  /** 2xx responses per second: an error answered fast is not throughput. */
  requestsPerSecond: number;
  /** Latency of 2xx responses, ms. */
  p50: number;
  p99: number;
  /** Responses that were not 2xx, plus connection errors and timeouts. */
  errors: number;
  /** Count per status code, e.g. { "202": 9120, "500": 3 }, so an error run is visible at a glance. */
  statusCodes: Record<string, number>;
};

/** Sends `method url` (with `body`, if any) from `connections` connections for `seconds`. */
const WARMUP_SECONDS = 3;

export async function load(options: {
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  timeoutSeconds?: number;
  /** Unmeasured seconds first (3): a process already warmed by an earlier load may take 0. */
  warmupSeconds?: number;
  /** Paths requested in turn on `url`'s server instead of `url`'s own. */
  paths?: string[];
  /** Count 3xx answers as successes (a redirect endpoint). */
  redirectsAreOk?: boolean;
}): Promise<LoadResult> {
  let next = 0;
  const { paths } = options;
  const run = (seconds: number) =>
    autocannon({
      url: options.url,
      method: options.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: options.body,
      connections: options.connections,
      duration: seconds,
      timeout: options.timeoutSeconds ?? 10,
      ...(paths ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: paths[next++ % paths.length] }) }] } : {}),
      // Latency of successful answers only; `errors` below counts the rest (autocannon's `errors` includes timeouts).
      // autocannon counts only 2xx as successes there: a redirect endpoint's latency includes every answer.
      excludeErrorStats: !options.redirectsAreOk,
    });
  // Unmeasured warm-up, for floor and API alike: a fresh process spends its first seconds loading modules lazily and
  // compiling hot code (measured cold, the API's send did half its warm rate).
  const warmupSeconds = options.warmupSeconds ?? WARMUP_SECONDS;
  if (warmupSeconds > 0) await run(warmupSeconds);
  const result = await run(options.seconds);
  // autocannon drops its connections at the end, not the requests the server is still working on: let those finish,
  // so they neither weigh on the next phase nor fail when the server is stopped.
  await new Promise((resolve) => setTimeout(resolve, Math.min(5000, result.latency.max + 500)));
  const redirects = options.redirectsAreOk ? result['3xx'] : 0;
  return {
    requestsPerSecond: Math.round((result['2xx'] + redirects) / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx - redirects + result.errors,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0])),
  };
}

/** Waits until `count()` reaches `target`, showing progress; returns the seconds it took. */
export async function drain(label: string, target: number, count: () => Promise<number>, timeoutMs = 600_000): Promise<number> {
  const started = performance.now();
  let shown = 0;
  for (;;) {
    const done = await count();
    const seconds = (performance.now() - started) / 1000;
    if (done >= target) return seconds;
    if (seconds * 1000 > timeoutMs) throw new Error(`${label}: ${done}/${target} after ${timeoutMs} ms`);
    if (seconds - shown >= 10) {
      progress(`${label}: ${done}/${target} (${Math.round(done / seconds)}/s)`);
      shown = seconds;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Deletes every Redis key under `prefix` (the run's queues and counters), without blocking Redis. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** The floor's one table: the messages bench/floor/ inserts, and its worker marks sent. */
const FLOOR_TABLE_SQL = `CREATE TABLE IF NOT EXISTS floor_messages (id uuid PRIMARY KEY, org_id text NOT NULL, recipient text NOT NULL,
  subject text NOT NULL, body text NOT NULL, status text NOT NULL DEFAULT 'queued', created_at timestamptz NOT NULL DEFAULT now())`;

/** Database `name` on DATABASE_URL's server, dropped, created again and migrated, with the floor's table; its URL. */
export async function freshBenchDatabase(name: string): Promise<string> {
  const url = new URL(loadConfig().databaseUrl);
  url.pathname = '/postgres';
  await recreateDatabase(url.toString(), name);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  await db.query(FLOOR_TABLE_SQL).finally(() => db.end());
  return url.toString();
}

/**
 * Runs one phase of the benchmark on its own (the whole run takes long on a busy machine): a database of its own,
 * dropped and created again, its own Redis prefix; prints the result and writes bench/results/<name>.json.
 * @example await runOnePhase('broadcast', {}, (bench) => measureBroadcast(bench, 100_000));
 */
export async function runOnePhase(name: string, extraEnv: Record<string, string>, measure: (bench: Bench) => Promise<Record<string, unknown>>) {
  const databaseUrl = await freshBenchDatabase(`tidings_bench_${name.replace(/\W/g, '_')}`);
  const runPrefix = `bench-${Date.now()}`;
  const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '10', ...extraEnv };
  const deps = openDeps(loadConfig({ ...process.env, ...env, REDIS_PREFIX: runPrefix, LOG_LEVEL: 'silent' }), 'bench');
  const bench: Bench = { deps, env, prefix: (phase) => `${runPrefix}-${phase}`, seconds: Number(process.env.BENCH_SECONDS ?? 10) };
  try {
    const result = await measure(bench);
    const machine = { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10) };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, `bench/results/${name}.json`), `${JSON.stringify({ ...result, machine }, null, 2)}\n`);
    console.table(result);
    console.log(machine);
  } finally {
    await deleteKeys(deps.redis, runPrefix);
    await deps.close();
  }
}

/**
 * A bench script of one phase (`npm run bench:<name>`): runOnePhase, then the process ends (0 when it measured, 1
 * with the error printed); the in-process schema engine of `migrate` would keep it alive.
 * @example runPhaseScript('smtp', {}, async (bench) => ({ smtp: await measureSmtpSubmission(bench, api, key) }));
 */
export function runPhaseScript(name: string, extraEnv: Record<string, string>, measure: (bench: Bench) => Promise<Record<string, unknown>>): void {
  runOnePhase(name, extraEnv, measure).then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * Sends `total` messages (half email, half SMS) as `message.sendBatch` requests of 100, `parallel` at a time, to the
 * batch endpoint at `url`; throws on any answer but 202.
 */
export async function sendBatches(url: string, apiKey: string, total: number, parallel: number): Promise<void> {
  const batches = Math.ceil(total / 100);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < batches) {
        const b = next++;
        const messages = Array.from({ length: Math.min(100, total - b * 100) }, (_, i) =>
          i % 2 ? { channelType: 'sms', to: '+14155550123', body: `Code ${b}-${i}` } : { channelType: 'email', to: `u${b}-${i}@example.com`, subject: 'Bench', text: 'Hello' },
        );
        const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages }) });
        if (res.status !== 202) throw new Error(`batch ${b}: ${res.status} ${await res.text()}`);
      }
    }),
  );
}
