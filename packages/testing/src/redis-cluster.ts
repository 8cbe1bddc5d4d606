import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startRedisServer } from './redis-server.ts';
import { waitFor } from './wait-for.ts';

const run = promisify(execFile);

export type RedisCluster = {
  /** `redis+cluster://127.0.0.1:<port>,...`: REDIS_URL for our processes. */
  url: string;
  ports: number[];
  /** Kills the master on `port` (SIGKILL) and starts it again from its append-only file, then waits for the cluster to be ok. */
  restartMaster(port: number): Promise<void>;
  close(): Promise<void>;
};

async function clusterOk(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']).catch(() => ({ stdout: '' }));
  return stdout.includes('cluster_state:ok');
}

/**
 * A real Redis Cluster of masters only (one per port, default 7100-7102) in a temporary directory, joined with
 * `redis-cli --cluster create`. Every write is on disk before it is answered (appendfsync always), so a master
 * killed and started again keeps its data, as one with a replica or a persistent volume would.
 * @example const cluster = await startRedisCluster(); ... REDIS_URL: cluster.url ... await cluster.close();
 */
export async function startRedisCluster(ports: number[] = [7100, 7101, 7102]): Promise<RedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tidings-redis-cluster-'));
  const servers = new Map<number, ChildProcess>();
  const startNode = async (port: number) => {
    const args = ['--dir', path.join(dir), '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000'];
    args.push('--appendonly', 'yes', '--appendfilename', `appendonly-${port}.aof`, '--appenddirname', `aof-${port}`, '--appendfsync', 'always');
    servers.set(port, await startRedisServer(port, args));
  };
  const stopNode = async (port: number) => {
    const server = servers.get(port);
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  };
  const allOk = async () => (await Promise.all(ports.map(clusterOk))).every(Boolean);
  const close = async () => {
    await Promise.all(ports.map(stopNode));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(ports.map(startNode));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    await waitFor(allOk, 20_000, 'the Redis Cluster to be ok');
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    async restartMaster(port) {
      await stopNode(port);
      await startNode(port);
      await waitFor(allOk, 30_000, 'the Redis Cluster to be ok again');
    },
    close,
  };
}
