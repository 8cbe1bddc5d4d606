import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { waitFor } from './wait-for.ts';

/** Whether something accepts a TCP connection on 127.0.0.1:`port`. */
export function answersOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    }).on('error', () => resolve(false));
  });
}

/**
 * A redis-server child of the caller's own on 127.0.0.1:`port`, keeping nothing on disk unless `args` say otherwise
 * (later flags win: `['--appendonly', 'yes', ...]`); resolves once it takes connections. The caller kills it.
 * @example const redis = await startRedisServer(7113); ... redis.kill('SIGKILL');
 */
export async function startRedisServer(port: number, args: string[] = []): Promise<ChildProcess> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
  try {
    await waitFor(() => answersOn(port), 10_000, `redis-server on port ${port}`);
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
  return server;
}
