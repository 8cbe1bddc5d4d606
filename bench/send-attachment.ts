// The `message.send` with a 1 MiB attachment phase of `npm run bench` on its own (the whole run takes long on a busy
// machine): npm run bench:send-attachment. Its own database (dropped and created again), its own Redis prefix;
// prints and writes bench/results/send-attachment.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@tidings/config';
import { createOrganization, openDeps } from '@tidings/core';
import { migrate } from '@tidings/db';
import { Client } from 'pg';
import { deleteKeys, root, startApi, stopProcess, type Bench } from './harness.ts';
import { ATTACHMENT_CONNECTIONS, measureSendWithAttachment } from './phases/send-attachment.ts';

async function main() {
  const url = new URL(loadConfig().databaseUrl);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS tidings_bench_attachment WITH (FORCE)');
  await admin.query('CREATE DATABASE tidings_bench_attachment');
  await admin.end();
  url.pathname = '/tidings_bench_attachment';
  const databaseUrl = url.toString();
  await migrate(databaseUrl);
  const runPrefix = `bench-${Date.now()}`;
  const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', DATABASE_POOL_SIZE: '10' };
  const deps = openDeps(loadConfig({ ...process.env, ...env, REDIS_PREFIX: runPrefix, LOG_LEVEL: 'silent' }), 'bench');
  const bench: Bench = { deps, env, prefix: (phase) => `${runPrefix}-${phase}`, seconds: Number(process.env.BENCH_SECONDS ?? 10) };
  try {
    const { apiKey } = await createOrganization(deps, { name: 'Bench', mode: 'test' });
    const api = await startApi(bench);
    const result = await measureSendWithAttachment(bench, api, apiKey.key);
    await stopProcess(api.child);
    const summary = {
      connections: ATTACHMENT_CONNECTIONS,
      requestsPerSecond: result.requestsPerSecond,
      p50: result.p50,
      p99: result.p99,
      apiPeakRssMiB: result.peakRssMiB,
      errors: result.errors,
      statusCodes: result.statusCodes,
    };
    const machine = { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10) };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/send-attachment.json'), `${JSON.stringify({ sendWithAttachment: summary, machine }, null, 2)}\n`);
    console.table({ 'message.send + 1 MiB attachment': summary });
    console.log(machine);
  } finally {
    await deleteKeys(deps.redis, runPrefix);
    await deps.close();
  }
  process.exit(0); // the in-process schema engine of `migrate` would keep the process alive
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
