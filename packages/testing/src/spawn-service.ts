import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Config } from '@tidings/config';

type Stores = Pick<Config, 'databaseUrl' | 'redisUrl' | 'redisPrefix'>;

/**
 * Starts one of our processes from its entry file as operators run it, on the test's database, Redis and prefix, with
 * logs off unless `env` says otherwise. Node itself runs it with tsx as a loader (not the tsx CLI, which would run it
 * in a grandchild that signals, SIGKILL included, never reach). Kill it in afterAll.
 * @example const worker = spawnService(path.resolve(__dirname, '../src/worker.ts'), deps.config, { SEND_WORKER_QUEUES: 'email' });
 */
export function spawnService(entry: string, stores: Stores, env: Record<string, string> = {}, stdio: StdioOptions = 'ignore'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, DATABASE_URL: stores.databaseUrl, REDIS_URL: stores.redisUrl, REDIS_PREFIX: stores.redisPrefix, LOG_LEVEL: 'silent', ...env },
    stdio,
  });
}

/**
 * `spawnService` for a process that serves HTTP: resolves once it logs that it is listening. `stop()` sends SIGTERM
 * and waits for it to exit.
 * @example const api = await startHttpService(entry, deps.config, { API_PORT: String(port) }); ... await api.stop();
 */
export async function startHttpService(entry: string, stores: Stores, env: Record<string, string>): Promise<{ stop(): Promise<void> }> {
  const child = spawnService(entry, stores, { LOG_LEVEL: 'info', ...env }, ['ignore', 'pipe', 'inherit']);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}) before listening`)));
  });
  return {
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
