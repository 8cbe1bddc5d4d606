// CPU seconds per 1,000 messages, by process, for one phase: wall-clock rates mean little on a busy machine, the
// CPU each part spends per message does not. Postgres is counted on the backends of the measured process only (by
// application_name), Redis on a private redis-server started for the run.
//   npm run bench:cpu-cost -- drain [messages=5000]   the send-worker and the floor worker draining as many emails
//   npm run bench:cpu-cost -- batch [messages=20000]  message.sendBatch of 100 on the floor server and on the real API
//   npm run bench:cpu-cost -- send [messages=10000]   message.send, 50 connections, on the floor server and on the real API
//   npm run bench:cpu-cost -- list [requests=2000]    message.list pages of 100 over 200,000 messages (per 1,000 requests)
//   npm run bench:cpu-cost -- webhooks [events=5000]  the webhook-worker delivering as many contact.created events
//   npm run bench:cpu-cost -- broadcast [contacts=20000]  a broadcast's fan-out to a segment of as many contacts, then
//                                                        to a topic of half of them (per 1,000 messages created)
//   npm run bench:cpu-cost -- send-tracing [sends=3000]  message.send on an API with tracing off and one with it on,
//                                                        alternating, with the spans exported per send
import './env.ts'; // first: .env fills the environment before anything reads it
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Prisma } from '@tidings/db';
import { createOrganization } from '@tidings/core';
import { closeQueues, createQueues } from '@tidings/queue';
import { startFakeResend, startRedisServer } from '@tidings/testing';
import { BATCH_BODY } from './phases/batch.ts';
import { measureBroadcastCost } from './phases/broadcast-cpu.ts';
import { seedMessages } from './phases/list.ts';
import { measureWebhooks } from './phases/webhooks.ts';
import { SEND_CONNECTIONS } from './phases/send.ts';
import { measureSendTracing, repeat, sendMessages } from './phases/send-cpu.ts';
import { seedFloorEmails, seedQueuedEmails } from './phases/worker-drain.ts';
import { backendsCpuMeter, cpuSecondsOf, drain, freePort, progress, runOnePhase, startApi, startProcess, stopProcess, waitForWorker, type Bench } from './harness.ts';

const phase = process.argv[2] ?? 'drain';
const count = Number(process.argv[3] ?? { batch: 20_000, broadcast: 20_000, list: 2_000, send: 10_000, 'send-tracing': 3_000 }[phase] ?? 5_000);

type Parts = { node: number; postgres: number; redis: number };

/** CPU seconds of a Node process, its Postgres backends (by application name) and the private Redis, from now on. */
function cpuMeter(node: ChildProcess, redis: ChildProcess, applicationName: string, bench: Bench) {
  const backends = backendsCpuMeter(bench.deps.db, Prisma.sql`application_name = ${applicationName}`);
  const start = { node: cpuSecondsOf(node.pid!), redis: cpuSecondsOf(redis.pid!) };
  return {
    ready: backends.ready,
    async stop(): Promise<Parts> {
      const postgres = await backends.stop();
      return { node: cpuSecondsOf(node.pid!) - start.node, postgres, redis: cpuSecondsOf(redis.pid!) - start.redis };
    },
  };
}

function perThousand(parts: Parts, messages: number) {
  const per = (s: number) => Math.round((s / messages) * 1000 * 1000) / 1000;
  return { node: per(parts.node), postgres: per(parts.postgres), redis: per(parts.redis), total: per(parts.node + parts.postgres + parts.redis) };
}

function withApplicationName(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

async function measureDrain(bench: Bench, redis: ChildProcess) {
  const { db, redis: connection } = bench.deps;
  const resend = await startFakeResend();
  try {
    // floor
    const floorIds = await seedFloorEmails(bench, count);
    const floorQueue = new Queue('floor-email', { connection, prefix: bench.prefix('floor-drain') });
    const floorWorker = startProcess('floor-worker', 'bench/floor/floor-worker.ts', {
      ...bench.env,
      DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-floor'),
      REDIS_PREFIX: bench.prefix('floor-drain'),
      PROVIDER_URL: resend.url,
      CONCURRENCY: String(bench.deps.config.sendWorker.concurrency),
    });
    const floor = await timed(
      bench,
      floorWorker,
      redis,
      'cpu-floor',
      floorQueue,
      floorIds,
      (id) => ({ id }),
      async () => {
        const [row] = await db.$queryRaw<{ done: bigint }[]>`SELECT count(*) AS done FROM floor_messages WHERE status = 'sent'`;
        return Number(row!.done);
      },
    );
    await stopProcess(floorWorker);
    await floorQueue.close();
    resend.reset();
    resend.state.emails.length = 0;

    const { organization, ids } = await seedQueuedEmails(bench, count);
    const queues = createQueues(connection, bench.prefix('drain'));
    const worker = startProcess('send-worker', 'apps/send-worker/src/worker.ts', {
      ...bench.env,
      DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-worker'),
      REDIS_PREFIX: bench.prefix('drain'),
      SEND_WORKER_QUEUES: 'email',
      RESEND_API_KEY: 're_bench',
      RESEND_BASE_URL: resend.url,
      RESEND_RATE_PER_SECOND: '10000', // the most the configuration takes: unpaced at this load
    });
    const real = await timed(
      bench,
      worker,
      redis,
      'cpu-worker',
      queues.email,
      ids,
      (id) => ({ messageId: id }),
      async () => {
        const [row] = await db.$queryRaw<{ done: bigint }[]>`SELECT count(*) AS done FROM "Message" WHERE "orgId" = ${organization.id} AND "status" = 'sent'`;
        return Number(row!.done);
      },
    );
    await stopProcess(worker);
    await closeQueues(queues);
    return {
      messages: count,
      ...prefixed('worker', real),
      ...prefixed('floor', floor),
    };
  } finally {
    await resend.close();
  }
}

async function timed(
  bench: Bench,
  worker: ChildProcess,
  redis: ChildProcess,
  applicationName: string,
  queue: Queue,
  ids: string[],
  data: (id: string) => object,
  done: () => Promise<number>,
) {
  await waitForWorker(queue);
  const meter = cpuMeter(worker, redis, applicationName, bench);
  await meter.ready;
  for (let i = 0; i < ids.length; i += 1000) {
    await queue.addBulk(ids.slice(i, i + 1000).map((id) => ({ name: queue.name, data: data(id), opts: { jobId: id } })));
  }
  await drain(applicationName, ids.length, done);
  return perThousand(await meter.stop(), ids.length);
}

async function measureBatchCost(bench: Bench, redis: ChildProcess) {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  const send = (url: string, total: number) =>
    repeat(total / 100, 10, 202, () => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' }, body: BATCH_BODY }));
  // the floor's own batch (bench/floor/floor-api.ts: one INSERT of the 100, one addBulk), then the API's
  return floorThenApi(bench, redis, { floorPath: '/send-batch', apiPath: '/v1/messages/batch', warmUp: 5_000, load: send });
}

/**
 * The floor's API, then the real API, each warmed up with `warmUp` messages of `load` and then measured over `count`:
 * CPU per 1,000 messages of each process with its Postgres backends and Redis, in one run.
 */
async function floorThenApi(
  bench: Bench,
  redis: ChildProcess,
  { floorPath, apiPath, warmUp, load }: { floorPath: string; apiPath: string; warmUp: number; load: (url: string, total: number) => Promise<unknown> },
) {
  const measure = async (name: string, child: ChildProcess, url: string) => {
    progress(`${name}: warming up`);
    await load(url, warmUp);
    const meter = cpuMeter(child, redis, name, bench);
    await meter.ready;
    progress(`${name}: ${count} messages`);
    await load(url, count);
    return perThousand(await meter.stop(), count);
  };
  const floor = await startFloorApi(bench);
  const floorCost = await measure('cpu-floor-api', floor.child, `${floor.url}${floorPath}`);
  await stopProcess(floor.child);
  const api = await startApi({ ...bench, env: { ...bench.env, DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-api') } });
  try {
    const apiCost = await measure('cpu-api', api.child, `${api.url}${apiPath}`);
    return { messages: count, ...prefixed('api', apiCost), ...prefixed('floor', floorCost) };
  } finally {
    await stopProcess(api.child);
  }
}

/** The floor's API (bench/floor/floor-api.ts) on a free port, its Postgres backends named `cpu-floor-api`. */
async function startFloorApi(bench: Bench) {
  const port = await freePort();
  const child = startProcess('floor-api', 'bench/floor/floor-api.ts', {
    ...bench.env,
    DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-floor-api'),
    REDIS_PREFIX: bench.prefix('floor-api'),
    PORT: String(port),
  });
  await new Promise((resolve) => child.once('message', resolve));
  return { child, url: `http://127.0.0.1:${port}` };
}

const prefixed = (prefix: string, parts: object) => Object.fromEntries(Object.entries(parts).map(([k, v]) => [`${prefix}.${k}`, v]));

async function measureListCost(bench: Bench, redis: ChildProcess) {
  const env = { ...bench.env, DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-api') };
  const { organization, apiKey } = await createOrganization(bench.deps, { name: 'Bench list', mode: 'test' });
  await seedMessages(bench, organization.id, 200_000);
  const api = await startApi({ ...bench, env });
  try {
    const pages = (total: number) => repeat(total, 4, 200, () => fetch(`${api.url}/v1/messages?limit=100`, { headers: { authorization: `Bearer ${apiKey.key}` } }));
    progress('warming up the API');
    await pages(300);
    const meter = cpuMeter(api.child, redis, 'cpu-api', bench);
    await meter.ready;
    progress(`listing ${count} pages of 100`);
    await pages(count);
    return { requests: count, ...perThousand(await meter.stop(), count) };
  } finally {
    await stopProcess(api.child);
  }
}

async function measureSendCost(bench: Bench, redis: ChildProcess) {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  return floorThenApi(bench, redis, {
    floorPath: '/send',
    apiPath: '/v1/messages',
    warmUp: 2_000,
    load: (url, total) => sendMessages(url, apiKey.key, total, SEND_CONNECTIONS),
  });
}

const phases: Record<string, (bench: Bench, redis: ChildProcess) => Promise<Record<string, unknown>>> = {
  batch: measureBatchCost,
  list: measureListCost,
  send: measureSendCost,
  drain: measureDrain,
  webhooks: measureWebhookCost,
  'send-tracing': (bench) => measureSendTracing(bench, count),
  broadcast: (bench, redis) =>
    measureBroadcastCost(bench, count, { DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-fan-out') }, async (fanOut) => {
      const meter = cpuMeter(fanOut, redis, 'cpu-fan-out', bench);
      await meter.ready;
      return () => meter.stop();
    }),
};

/** The webhook phase of `npm run bench` (one endpoint on a loopback receiver), its worker and backends metered. */
function measureWebhookCost(bench: Bench, redis: ChildProcess) {
  return measureWebhooks(bench, count, {
    env: { DATABASE_URL: withApplicationName(bench.env.DATABASE_URL!, 'cpu-webhook-worker') },
    async start(worker) {
      const meter = cpuMeter(worker, redis, 'cpu-webhook-worker', bench);
      await meter.ready;
      return async () => perThousand(await meter.stop(), count);
    },
  });
}

async function main() {
  const port = await freePort();
  const redis = await startRedisServer(port);
  process.on('exit', () => redis.kill('SIGKILL'));
  try {
    // the webhook phase's endpoint is a loopback receiver
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '100000000', ...(phase === 'webhooks' && { WEBHOOK_ALLOW_LOOPBACK: 'true' }) };
    await runOnePhase(`cpu-${phase}`, env, (bench) => (phases[phase] ?? measureDrain)(bench, redis));
  } finally {
    redis.kill('SIGTERM');
  }
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
