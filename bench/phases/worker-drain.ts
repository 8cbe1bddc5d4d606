// Send-worker drain: BENCH_DRAIN_MESSAGES queued emails of a live organization (provider resend, the real SDK
// pointed at the fake Resend server) from enqueue to `sent`, through one real send-worker process; then the floor
// worker (bench/floor/floor-worker.ts) draining as many against the same fake server. The rows are inserted
// set-based before the worker starts; the clock starts when the worker is connected and the jobs are added.
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { createOrganization, newId } from '@tidings/core';
import { closeQueues, createQueues } from '@tidings/queue';
import { startFakeResend, type FakeResend } from '@tidings/testing';
import { drain, progress, ratio, sampleRss, startProcess, stopProcess, waitForWorker, type Bench } from '../harness.ts';

export type DrainResult = { messagesPerSecond: number; seconds: number; failed: number; peakRssMiB: number };

export async function measureWorkerDrain(bench: Bench, count: number) {
  const resend = await startFakeResend();
  try {
    const floor = await drainFloor(bench, resend, count);
    resend.reset();
    resend.state.emails.length = 0;
    const real = await drainSendWorker(bench, resend, count);
    return { real, floor, ratio: ratio(real.messagesPerSecond, floor.messagesPerSecond) };
  } finally {
    await resend.close();
  }
}

/** A live organization with `count` queued emails for provider resend, inserted set-based (no jobs yet). */
export async function seedQueuedEmails({ deps }: Bench, count: number) {
  const { organization } = await createOrganization(deps, { name: 'Bench drain', mode: 'live' });
  const ids = Array.from({ length: count }, () => newId('msg'));
  await deps.db.$executeRaw`
    INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "subject", "text", "status", "provider", "createdAt", "updatedAt")
    SELECT id, ${organization.id}, 'email'::"ChannelType", 'person' || n || '@example.com', 'hello@acme.test', 'Bench', 'Hello from the benchmark',
           'queued'::"MessageStatus", 'resend', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  return { organization, ids };
}

/**
 * Drains `count` queued emails through one send-worker process against `resend`. `paced`: as a broadcast's (the bulk
 * lane, batched) with RESEND_RATE_PER_SECOND at that rate; else single sends, unpaced.
 */
export async function drainSendWorker(bench: Bench, resend: FakeResend, count: number, paced?: { ratePerSecond: number }): Promise<DrainResult> {
  const { db, redis, config } = bench.deps;
  const { organization, ids } = await seedQueuedEmails(bench, count);
  if (paced) await db.message.updateMany({ where: { orgId: organization.id }, data: { broadcastId: newId('brd') } });
  const prefix = bench.prefix(paced ? 'paced-drain' : 'drain');
  const queues = createQueues(redis, prefix);
  const worker = startProcess('send-worker', 'apps/send-worker/src/worker.ts', {
    ...bench.env,
    REDIS_PREFIX: prefix,
    SEND_WORKER_QUEUES: 'email',
    RESEND_API_KEY: 're_bench',
    RESEND_BASE_URL: resend.url,
    RESEND_RATE_PER_SECOND: String(paced?.ratePerSecond ?? 10_000), // the most the configuration takes
  });
  try {
    return await timeDrain(
      paced ? `send-worker against Resend at ${paced.ratePerSecond} requests/s` : `send-worker (concurrency ${config.sendWorker.concurrency})`,
      worker,
      paced ? queues['email-bulk'] : queues.email,
      ids,
      (id) => ({ messageId: id }),
      count,
      async () => {
        const [row] = await db.$queryRaw<{ done: bigint; failed: bigint }[]>`
        SELECT count(*) FILTER (WHERE "status" IN ('sent', 'failed')) AS done, count(*) FILTER (WHERE "status" = 'failed') AS failed
        FROM "Message" WHERE "orgId" = ${organization.id}`;
        return { done: Number(row!.done), failed: Number(row!.failed) };
      },
    );
  } finally {
    await stopProcess(worker);
    await closeQueues(queues);
  }
}

/** `count` emails the floor worker is to send (org `floor-drain`); their ids. */
export async function seedFloorEmails({ deps }: Bench, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await deps.db.$executeRaw`
    INSERT INTO floor_messages (id, org_id, recipient, subject, body)
    SELECT id, 'floor-drain', 'person' || n || '@example.com', 'Bench', 'Hello from the benchmark' FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS u(id, n)`;
  return ids;
}

async function drainFloor(bench: Bench, resend: FakeResend, count: number): Promise<DrainResult> {
  const { db, redis, config } = bench.deps;
  const ids = await seedFloorEmails(bench, count);
  const prefix = bench.prefix('floor-drain');
  const queue = new Queue('floor-email', { connection: redis, prefix });
  const worker = startProcess('floor-worker', 'bench/floor/floor-worker.ts', {
    ...bench.env,
    REDIS_PREFIX: prefix,
    PROVIDER_URL: resend.url,
    CONCURRENCY: String(config.sendWorker.concurrency),
  });
  try {
    return await timeDrain(
      `floor worker (concurrency ${config.sendWorker.concurrency})`,
      worker,
      queue,
      ids,
      (id) => ({ id }),
      count,
      async () => {
        const [row] = await db.$queryRaw<{ done: bigint }[]>`SELECT count(*) AS done FROM floor_messages WHERE org_id = 'floor-drain' AND status = 'sent'`;
        return { done: Number(row!.done), failed: 0 };
      },
    );
  } finally {
    await stopProcess(worker);
    await queue.close();
  }
}

/** Waits for `worker` on `queue`, adds one job per id (jobId = id), and times until `progressOf` says all are done. */
async function timeDrain(
  label: string,
  worker: ChildProcess,
  queue: Queue,
  ids: string[],
  data: (id: string) => object,
  count: number,
  progressOf: () => Promise<{ done: number; failed: number }>,
): Promise<DrainResult> {
  await waitForWorker(queue);
  progress(`${label}: draining ${count} messages`);
  const rss = sampleRss(worker.pid!);
  const started = performance.now();
  for (let i = 0; i < ids.length; i += 1000) {
    await queue.addBulk(ids.slice(i, i + 1000).map((id) => ({ name: queue.name, data: data(id), opts: { jobId: id } })));
  }
  await drain(label, count, async () => (await progressOf()).done);
  const seconds = (performance.now() - started) / 1000;
  const { failed } = await progressOf();
  return { messagesPerSecond: Math.round(count / seconds), seconds: Math.round(seconds * 10) / 10, failed, peakRssMiB: rss.stop() };
}
