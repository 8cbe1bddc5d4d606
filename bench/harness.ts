// Shared pieces of the benchmark: child processes, free ports, autocannon runs, progress lines.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

export const root = path.resolve(__dirname, '..');

/** Prints a progress line with the elapsed time, so a long run shows where it is. */
export function progress(message: string): void {
  const seconds = (performance.now() / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
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

/** Runs a TypeScript entry as its own Node process (through tsx), with `env` on top of this process's. */
export function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  return fork(path.resolve(root, entry), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export type LoadResult = { requestsPerSecond: number; p50: number; p99: number; errors: number; non2xx: number };

/** POSTs `body` to `url` from `connections` connections for `seconds`; latency in ms. */
export async function load(options: { url: string; headers: Record<string, string>; body: string; connections: number; seconds: number }): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Waits until `count()` reaches `target`, showing progress; returns the seconds it took. */
export async function drain(label: string, target: number, count: () => Promise<number>, timeoutMs = 600_000): Promise<number> {
  const started = performance.now();
  let last = 0;
  for (;;) {
    const done = await count();
    if (done >= target) return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs) throw new Error(`${label}: ${done}/${target} after ${timeoutMs} ms`);
    if (done - last >= target / 10) {
      progress(`${label}: ${done}/${target}`);
      last = done;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
