// npm run bench: message.send throughput and latency of the real API against the floor (bench/floor), in one run,
// over loopback, with the rate limit raised by configuration. Writes bench/results/latest.json.
// Not yet measured here (see README): batch, worker drain, webhook fan-out, list p99 at 1M messages.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@tidings/config';
import { createOrganization, openDeps } from '@tidings/core';
import { migrate } from '@tidings/db';
import { Client } from 'pg';
import { freePort, load, progress, root, rssMiB, startProcess, stopProcess, waitForOk } from './harness.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const databaseUrl = 'postgresql://postgres@127.0.0.1:5432/tidings_bench_run';

async function freshDatabase() {
  const admin = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS tidings_bench_run WITH (FORCE)');
  await admin.query('CREATE DATABASE tidings_bench_run');
  await admin.end();
  await migrate(databaseUrl);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(`CREATE TABLE floor_messages (id uuid PRIMARY KEY, org_id text NOT NULL, recipient text NOT NULL, subject text NOT NULL,
    body text NOT NULL, status text NOT NULL DEFAULT 'queued', created_at timestamptz NOT NULL DEFAULT now())`);
  await db.end();
}

async function main() {
  progress('preparing a fresh database');
  await freshDatabase();
  const env = { DATABASE_URL: databaseUrl, REDIS_PREFIX: `bench-${Date.now()}`, RATE_LIMIT_PER_MINUTE: '100000000', DATABASE_POOL_SIZE: '10' };
  const deps = openDeps(loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent' }), 'bench');
  const { apiKey } = await createOrganization(deps, { name: 'Bench', mode: 'test' });
  await deps.close();
  const body = JSON.stringify({ channelType: 'email', to: 'bench@example.com', subject: 'Bench', text: 'Hello from the benchmark' });
  const headers = { authorization: `Bearer ${apiKey.key}` };

  const floorPort = await freePort();
  const floor = startProcess('bench/floor/floor-api.ts', { ...env, PORT: String(floorPort) });
  await new Promise((resolve) => floor.once('message', resolve));
  progress(`floor: POST /send, ${CONNECTIONS} connections, ${SECONDS} s`);
  const floorResult = await load({ url: `http://127.0.0.1:${floorPort}/send`, headers, body, connections: CONNECTIONS, seconds: SECONDS });
  await stopProcess(floor);

  const apiPort = await freePort();
  const api = startProcess('apps/api/src/server.ts', { ...env, API_PORT: String(apiPort), LOG_LEVEL: 'warn' });
  await waitForOk(`http://127.0.0.1:${apiPort}/healthz`);
  progress(`api: POST /v1/messages, ${CONNECTIONS} connections, ${SECONDS} s`);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(api.pid!))), 500);
  const apiResult = await load({ url: `http://127.0.0.1:${apiPort}/v1/messages`, headers, body, connections: CONNECTIONS, seconds: SECONDS });
  clearInterval(sampler);
  await stopProcess(api);

  const results = {
    api: {
      throughput: apiResult.requestsPerSecond,
      p50: apiResult.p50,
      p99: apiResult.p99,
      errors: apiResult.errors + apiResult.non2xx,
      floorThroughput: floorResult.requestsPerSecond,
      floorP99: floorResult.p99,
      ratio: Math.round((apiResult.requestsPerSecond / floorResult.requestsPerSecond) * 100) / 100,
      p99Ratio: Math.round((apiResult.p99 / floorResult.p99) * 100) / 100,
    },
    memory: { apiPeakRssMiB: peakRss },
    machine: { cpus: os.cpus().length, node: process.version },
  };
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  writeFileSync(path.join(root, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.table({
    'message.send': { 'req/s': results.api.throughput, 'p50 ms': results.api.p50, 'p99 ms': results.api.p99, errors: results.api.errors },
    floor: { 'req/s': results.api.floorThroughput, 'p50 ms': floorResult.p50, 'p99 ms': results.api.floorP99, errors: floorResult.errors + floorResult.non2xx },
  });
  console.log(`ratio ${results.api.ratio}x throughput, ${results.api.p99Ratio}x p99; API peak RSS ${peakRss} MiB`);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
