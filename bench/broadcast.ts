// The broadcast phase of `npm run bench` on its own (the whole run takes long on a busy machine):
//   npm run bench:broadcast -- [contacts=100000]
// Its own database (dropped and created again), its own Redis prefix; prints and writes bench/results/broadcast.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/core';
import { migrate } from '@tidings/db';
import { Client } from 'pg';
import { deleteKeys, root, type Bench } from './harness.ts';
import { measureBroadcast } from './phases/broadcast.ts';

const contacts = Number(process.argv[2] ?? process.env.BENCH_BROADCAST_CONTACTS ?? 100_000);

async function main() {
  const url = new URL(loadConfig().databaseUrl);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS tidings_bench_broadcast WITH (FORCE)');
  await admin.query('CREATE DATABASE tidings_bench_broadcast');
  await admin.end();
  url.pathname = '/tidings_bench_broadcast';
  const databaseUrl = url.toString();
  await migrate(databaseUrl);
  const runPrefix = `bench-${Date.now()}`;
  const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '10' };
  const deps = openDeps(loadConfig({ ...process.env, ...env, REDIS_PREFIX: runPrefix, LOG_LEVEL: 'silent' }), 'bench');
  const bench: Bench = { deps, env, prefix: (phase) => `${runPrefix}-${phase}`, seconds: 0 };
  try {
    const result = await measureBroadcast(bench, contacts);
    const machine = { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10) };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/broadcast.json'), `${JSON.stringify({ broadcast: result, machine }, null, 2)}\n`);
    console.table({ broadcast: result });
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
