// Messages per second through the whole pipeline on the sandbox: HTTP API (message.sendBatch, 100 per request)
// -> Postgres + outbox -> BullMQ -> a send-worker PROCESS -> sandbox -> delivered. Uses its own database and Redis
// prefix, cleans up after itself.
//   npm run bench:send -- [messages=5000] [parallelRequests=4]
import './env.ts'; // first: .env fills the environment before anything reads it
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '@tidings/api';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import { createOrganization } from '@tidings/core';
import { ensureDatabase, migrate } from '@tidings/db';
import { sendBatches } from './harness.ts';

const total = Number(process.argv[2] ?? 5000);
const parallel = Number(process.argv[3] ?? 4);

async function main() {
  const base = loadConfig();
  const dbUrl = new URL(base.databaseUrl);
  dbUrl.pathname = '/tidings_bench_send_sandbox'; // its own database: other benches may drop theirs
  const env = {
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: base.redisUrl,
    REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
    RATE_LIMIT_PER_MINUTE: '1000000',
    SANDBOX_OUTCOME_DELAY_MS: '0',
    SEND_WORKER_METRICS_PORT: '0', // any free port: runs beside `npm start` on the same machine
    LOG_LEVEL: 'error',
  };
  const config = loadConfig({ ...env, API_PORT: '0' });
  await ensureDatabase(config.databaseUrl);
  await migrate(config.databaseUrl);
  const deps = openDeps(config, 'bench');
  const { apiKey, organization } = await createOrganization(deps, { name: 'Bench', mode: 'test' });

  const root = path.resolve(__dirname, '..');
  const worker = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/send-worker/src/worker.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: 'inherit',
  });
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/messages/batch`;
  await new Promise((resolve) => setTimeout(resolve, 3000)); // the worker process starts

  try {
    await run();
  } finally {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
    await deps.db.message.deleteMany({ where: { orgId: organization.id } });
    await deps.redis.eval(`for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end`, 0, `${env.REDIS_PREFIX}:*`);
    server.close();
    await deps.close();
  }
  process.exit(0); // the in-process schema engine of `migrate` would keep the process alive

  async function run() {
    const started = Date.now();
    await sendBatches(url, apiKey.key, total, parallel);
    const acceptedMs = Date.now() - started;
    for (;;) {
      const delivered = await deps.db.message.count({ where: { orgId: organization.id, status: 'delivered' } });
      if (delivered >= total) break;
      if (Date.now() - started > 600_000) throw new Error(`only ${delivered} of ${total} delivered after 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const deliveredMs = Date.now() - started;
    console.log(
      JSON.stringify({
        messages: total,
        acceptedPerSecond: Math.round((total / acceptedMs) * 1000),
        deliveredPerSecond: Math.round((total / deliveredMs) * 1000),
        acceptSeconds: acceptedMs / 1000,
        endToEndSeconds: deliveredMs / 1000,
        workerConcurrency: config.sendWorker.concurrency,
      }),
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
