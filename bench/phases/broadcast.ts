// Broadcast fan-out: BENCH_BROADCAST_CONTACTS contacts of a live organization in a segment, broadcast.send, then
// one fan-out process (a send-worker consuming only `broadcasts`) fixes the recipients and writes the messages in
// chunks. Timed from broadcast.send until every message is created and its job is in the bulk email queue: messages
// created per second. Then one send-worker process (email only) sends them all through Resend (the real SDK pointed
// at the fake Resend server), as the drain phase sends its messages: the time until every one was sent.
// broadcast.get is read while they are in flight, to show its counts stay cheap. BENCH_BROADCAST_DELIVERY_SECONDS
// caps the wait (default 1800): past it, the figures are the messages sent so far and their rate.
import { createOrganization, createBroadcast, getBroadcast, newId, sendBroadcast } from '@tidings/core';
import type { Queue } from 'bullmq';
import { Prisma } from '@tidings/db';
import { closeQueues, createQueues } from '@tidings/queue';
import { startFakeResend } from '@tidings/testing';
import { backendsCpuMeter, cpuSecondsOf, drain, progress, sampleRss, startProcess, stopProcess, waitForWorker, type Bench } from '../harness.ts';

export type BroadcastResult = {
  contacts: number;
  messagesCreatedPerSecond: number;
  createSeconds: number;
  /** Seconds until every message had reached the provider (none queued or sending). */
  deliverSeconds: number;
  /** Messages sent, and per second until every one was (the drain's measure). */
  sent: number;
  sentPerSecond: number;
  /** Of those, refused by the provider (none expected: a failure here makes the rate meaningless). */
  failed: number;
  getCountsP50Ms: number;
  getCountsMaxMs: number;
  fanOutPeakRssMiB: number;
  fanOutConcurrency: number;
  /**
   * CPU seconds per 1,000 messages created, of the fan-out process, of the Postgres backends serving the bench
   * database, and of Redis (the whole server: on a shared machine it includes others' work). Less sensitive to a
   * busy machine than the rate, so before/after compare on it too.
   */
  fanOutCpuPerThousand: number;
  postgresCpuPerThousand: number;
  redisCpuPerThousand: number;
  /** The same organization's broadcast to an opt-out topic that every second contact left, in the same run. */
  topicMembers: number;
  topicMessagesCreatedPerSecond: number;
};

async function redisCpuSeconds(redis: Bench['deps']['redis']): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
}

/** Jobs waiting in `queue`: the bulk lane's jobs take turns between organizations, so they wait `prioritized`. */
export const waitingJobs = (queue: Queue) => queue.getJobCountByTypes('wait', 'prioritized');

/** An opt-out topic that every second of the seeded contacts left (one UPDATE of their choices), and its member count. */
export async function seedHalfTopic({ db }: Pick<Bench['deps'], 'db'>, orgId: string, contacts: number) {
  const topic = await db.topic.create({ data: { id: `top_bench_${Date.now()}`, orgId, name: 'Bench news', defaultSubscription: 'opt_out' } });
  await db.$executeRaw`UPDATE "Contact" SET "topics" = jsonb_build_object(${topic.id}::text, false) WHERE "orgId" = ${orgId} AND ("attributes" ->> 'n')::int % 2 = 0`;
  return { topic, members: contacts - Math.floor(contacts / 2) };
}

/**
 * A broadcast to an opt-out topic that every second contact left (one UPDATE of their choices), fanned out by the
 * same fan-out process once the segment broadcast is delivered: messages created per second, timed as the segment's,
 * so the two rates compare (the topic's members are one more condition in the same recipient statement).
 */
async function measureTopicFanOut(
  deps: Bench['deps'] & { queues: ReturnType<typeof createQueues> },
  orgId: string,
  templateId: string,
  contacts: number,
): Promise<{ topicMembers: number; topicMessagesCreatedPerSecond: number }> {
  const { db, queues } = deps;
  const { topic, members } = await seedHalfTopic(deps, orgId, contacts);
  const draft = await createBroadcast(deps, orgId, 'live', { name: 'Bench topic', channelType: 'email', templateId, topicId: topic.id, variables: { month: 'December' } });
  const waitingBefore = await waitingJobs(queues['email-bulk']);
  progress(`broadcast: fan-out to a topic of ${members} members`);
  const started = performance.now();
  await sendBroadcast({ deps, orgId }, draft.id, {});
  await drain('topic broadcast fan-out', members, async () => {
    const [created, waiting] = await Promise.all([db.message.count({ where: { broadcastId: draft.id } }), waitingJobs(queues['email-bulk'])]);
    return Math.min(created, waiting - waitingBefore);
  });
  return { topicMembers: members, topicMessagesCreatedPerSecond: Math.round(members / ((performance.now() - started) / 1000)) };
}

/** A live organization with a verified domain, `contacts` contacts (attributes plan 'pro' and n), a segment of them all and a template. */
export async function seedBroadcastOrg(bench: Bench, contacts: number) {
  const { deps } = bench;
  const { db } = deps;
  const { organization } = await createOrganization(deps, { name: 'Bench broadcast', mode: 'live' });
  const orgId = organization.id;
  await db.emailDomain.create({
    data: { id: newId('dom'), orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'news@acme.test' },
  });
  progress(`broadcast: inserting ${contacts} contacts`);
  await db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "attributes", "createdAt", "updatedAt")
    SELECT 'con_bench_' || n, ${orgId}, 'person' || n || '@example.com', 'Person ' || n, jsonb_build_object('plan', 'pro', 'n', n),
           now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM generate_series(1, ${contacts}) AS n`;
  await db.$executeRaw`ANALYZE "Contact"`;
  const segment = await db.segment.create({
    data: { id: `seg_bench_${Date.now()}`, orgId, name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } },
  });
  const template = await db.template.create({
    data: {
      id: `tpl_bench_${Date.now()}`,
      orgId,
      name: 'News',
      channelType: 'email',
      versions: {
        create: {
          version: 1,
          subject: 'Hi {{ contact.firstName }}, the {{ month }} news',
          html: '<p>Hello {{ contact.firstName }} (#{{ contact.attributes.n }})</p><p>{{ month }} was busy.</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
          text: 'Hello {{ contact.firstName }}. {{ month }} was busy. Unsubscribe: {{ unsubscribeUrl }}',
          variables: ['contact', 'month', 'unsubscribeUrl'],
        },
      },
    },
  });
  return { orgId, segment, template };
}

export async function measureBroadcast(bench: Bench, contacts: number): Promise<BroadcastResult> {
  const { deps } = bench;
  const { db, redis, config } = deps;
  const { orgId, segment, template } = await seedBroadcastOrg(bench, contacts);
  const resend = await startFakeResend();
  const resendEnv = { RESEND_API_KEY: 're_bench', RESEND_BASE_URL: resend.url, RESEND_RATE_PER_SECOND: '10000' };
  const prefix = bench.prefix('broadcast');
  const queues = createQueues(redis, prefix);
  const fanOutConcurrency = Number(process.env.BENCH_BROADCAST_CONCURRENCY ?? config.broadcasts.workerConcurrency);
  const fanOut = startProcess('fan-out', 'apps/send-worker/src/worker.ts', {
    ...bench.env,
    REDIS_PREFIX: prefix,
    SEND_WORKER_QUEUES: 'broadcasts',
    ...resendEnv,
    BROADCAST_WORKER_CONCURRENCY: String(fanOutConcurrency),
    // the fan-out's own speed: no send-worker drains the bulk lane while it runs, so the organization's window
    // (BROADCAST_ORG_WINDOW, fairness between organizations) would hold it at 5,000 messages
    BROADCAST_ORG_WINDOW: '1000000',
    SEND_WORKER_METRICS_PORT: '0',
  });
  let sender: ReturnType<typeof startProcess> | null = null;
  const benchDeps = { ...deps, queues };
  try {
    await waitForWorker(queues.broadcasts);
    const draft = await createBroadcast(benchDeps, orgId, 'live', {
      name: 'Bench',
      channelType: 'email',
      templateId: template.id,
      segmentId: segment.id,
      variables: { month: 'November' },
    });
    const rss = sampleRss(fanOut.pid!);
    progress(`broadcast: fan-out of ${contacts} contacts (concurrency ${fanOutConcurrency})`);
    // every backend of the bench database (ours alone), sampled throughout: one closing meanwhile keeps what it spent
    const postgres = backendsCpuMeter(db, Prisma.sql`datname = current_database()`);
    await postgres.ready;
    const cpuBefore = { fanOut: cpuSecondsOf(fanOut.pid!), redis: await redisCpuSeconds(redis) };
    const started = performance.now();
    await sendBroadcast({ deps: benchDeps, orgId }, draft.id, {});
    // created and enqueued: every message row exists and its job is waiting in the email queue
    await drain('broadcast fan-out', contacts, async () => {
      const [created, waiting] = await Promise.all([db.message.count({ where: { broadcastId: draft.id } }), waitingJobs(queues['email-bulk'])]);
      return Math.min(created, waiting);
    });
    const createSeconds = (performance.now() - started) / 1000;
    const perThousand = (before: number, after: number) => Math.round(((after - before) / contacts) * 1000 * 1000) / 1000;
    const cpu = {
      fanOutCpuPerThousand: perThousand(cpuBefore.fanOut, cpuSecondsOf(fanOut.pid!)),
      postgresCpuPerThousand: perThousand(0, await postgres.stop()),
      redisCpuPerThousand: perThousand(cpuBefore.redis, await redisCpuSeconds(redis)),
    };
    const fanOutPeakRssMiB = rss.stop();

    progress('broadcast: one send-worker sends them through Resend');
    sender = startProcess('send-worker', 'apps/send-worker/src/worker.ts', {
      ...bench.env,
      ...resendEnv,
      REDIS_PREFIX: prefix,
      SEND_WORKER_QUEUES: 'email',
      SEND_WORKER_METRICS_PORT: '0',
    });
    const delivering = performance.now();
    const getTimes: number[] = [];
    const capSeconds = Number(process.env.BENCH_BROADCAST_DELIVERY_SECONDS ?? 1800);
    // until every message has reached the provider (none queued or sending), as the drain counts messages sent
    let sent = 0;
    let failed = 0;
    let shown = 0;
    while (sent < contacts && (performance.now() - delivering) / 1000 < capSeconds) {
      const t0 = performance.now();
      const { counts } = await getBroadcast(benchDeps, orgId, draft.id);
      getTimes.push(performance.now() - t0);
      sent = contacts - counts.queued - counts.waiting;
      failed = counts.failed;
      const seconds = (performance.now() - delivering) / 1000;
      if (seconds - shown >= 10) {
        progress(`broadcast: ${sent}/${contacts} sent (${Math.round(sent / seconds)}/s)`);
        shown = seconds;
      }
      if (sent < contacts) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const deliverSeconds = (performance.now() - delivering) / 1000;
    getTimes.sort((a, b) => a - b);
    await stopProcess(sender);
    sender = null;
    const topic = await measureTopicFanOut(benchDeps, orgId, template.id, contacts);
    return {
      contacts,
      messagesCreatedPerSecond: Math.round(contacts / createSeconds),
      createSeconds: Math.round(createSeconds * 10) / 10,
      deliverSeconds: Math.round(deliverSeconds * 10) / 10,
      sent,
      sentPerSecond: Math.round(sent / deliverSeconds),
      failed,
      getCountsP50Ms: Math.round(getTimes[Math.floor(getTimes.length / 2)]! * 10) / 10,
      getCountsMaxMs: Math.round(getTimes.at(-1)! * 10) / 10,
      fanOutPeakRssMiB,
      fanOutConcurrency,
      ...cpu,
      ...topic,
    };
  } finally {
    await stopProcess(fanOut);
    if (sender) await stopProcess(sender);
    await closeQueues(queues);
    await resend.close();
  }
}
