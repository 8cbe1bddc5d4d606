// Send throughput on one Redis against a three-master Redis Cluster, in the same run: npm run bench:scale-redis --
// [messages=4000]. For each, an API process and two send-worker processes on the sandbox; `message.sendBatch`
// requests of 100 (half email, half SMS), timed until the API took them all (accepted/s) and until every message is
// final (sent/s). One Redis is measured again last, so the order's share shows. Both setups are the run's own and
// persist alike (append-only file, fsync on every write): a redis-server on port 7113, a cluster on 7110-7112.
// Prints and writes bench/results/scale-redis.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrganization } from '@tidings/core';
import { startRedisCluster, startRedisServer } from '@tidings/testing';
import { drain, freePort, progress, runPhaseScript, sendBatches, startProcess, stopProcess, waitForOk, type Bench } from './harness.ts';

const total = Number(process.argv[2] ?? 4000);

async function measure(bench: Bench, label: string, redisUrl: string) {
  const { apiKey, organization } = await createOrganization(bench.deps, { name: `Bench ${label}`, mode: 'test' });
  const env = { ...bench.env, REDIS_URL: redisUrl, REDIS_PREFIX: bench.prefix(label), SANDBOX_OUTCOME_DELAY_MS: '0' };
  const port = await freePort();
  const api = startProcess(`api-${label}`, 'apps/api/src/server.ts', { ...env, API_PORT: String(port), API_METRICS_PORT: '0' });
  const workers = [0, 1].map((i) => startProcess(`send-worker-${label}-${i}`, 'apps/send-worker/src/worker.ts', { ...env, SEND_WORKER_METRICS_PORT: '0' }));
  try {
    await waitForOk(`http://127.0.0.1:${port}/healthz`);
    const started = performance.now();
    await sendBatches(`http://127.0.0.1:${port}/v1/messages/batch`, apiKey.key, total, 4);
    const acceptSeconds = (performance.now() - started) / 1000;
    const where = { orgId: organization.id, status: { notIn: ['scheduled' as const, 'queued' as const, 'sending' as const] } };
    await drain(`${label}: final`, total, () => bench.deps.db.message.count({ where }));
    const seconds = (performance.now() - started) / 1000;
    progress(`${label}: ${total} messages final after ${seconds.toFixed(1)} s`);
    return { acceptedPerSecond: Math.round(total / acceptSeconds), sentPerSecond: Math.round(total / seconds) };
  } finally {
    await Promise.all([api, ...workers].map(stopProcess));
  }
}

/** One redis-server of the run's own on `port`, persisting as the cluster's nodes do. */
async function startSingleRedis(port: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tidings-redis-single-'));
  const server = await startRedisServer(port, ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always']);
  return {
    url: `redis://127.0.0.1:${port}`,
    close() {
      server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

runPhaseScript('scale-redis', { RATE_LIMIT_PER_MINUTE: '100000000' }, async (bench) => {
  const cluster = await startRedisCluster([7110, 7111, 7112]);
  const own = await startSingleRedis(7113);
  try {
    const single = await measure(bench, 'single', own.url);
    const onCluster = await measure(bench, 'cluster', cluster.url);
    // one Redis again, after: what the order alone (warm caches, the machine's load) changed
    const singleAgain = await measure(bench, 'single-again', own.url);
    const bestSingle = Math.max(single.sentPerSecond, singleAgain.sentPerSecond);
    return { messages: { total }, single, cluster: onCluster, singleAgain, clusterOverSingle: { sent: Math.round((onCluster.sentPerSecond / bestSingle) * 100) / 100 } };
  } finally {
    own.close();
    await cluster.close();
  }
});
