import { startRedisCluster, type RedisCluster } from '@tidings/testing';
import { sendLoad, startRig, waitUntil, type Rig } from '../faults/rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from '../faults/settle.ts';
import { expectIdempotencyShared, expectMaintenanceOnce, expectRateLimitShared, expectScheduledSentOnce } from './checks.ts';
import { MESSAGES_ON_CLUSTER } from './messages.ts';
import { sendSmtpLoad } from './smtp-load.ts';

// The whole product on a real three-master Redis Cluster: two APIs, two send-workers, a webhook-worker, two SMTP
// submission apps. The master holding the email queue is killed and started again mid-load; nothing is lost or doubled.
const RELAY_EVERY_MS = 500;
let cluster: RedisCluster;
let rig: Rig;

beforeAll(async () => {
  cluster = await startRedisCluster();
  // No worker dies here, so locks long enough that a busy machine's pauses never pass a running job to another worker
  // (the fault rig's short locks would, and the job would run again: at least once, not exactly once).
  const env = { OUTBOX_RELAY_INTERVAL_MS: String(RELAY_EVERY_MS), STRANDED_JOB_AFTER_MS: '4000', SEND_WORKER_LOCK_DURATION_MS: '60000', WEBHOOK_WORKER_LOCK_MS: '60000' };
  rig = await startRig({ redisUrl: cluster.url, apis: 2, sendWorkers: 2, smtpSubmission: 2, env });
});
afterAll(async () => {
  await rig?.close();
  await cluster?.close();
});

/** The port of the master that serves `key`'s slot. */
async function masterOf(key: string): Promise<number> {
  const slot = (await rig.deps.redis.call('CLUSTER', 'KEYSLOT', key)) as number;
  const ranges = (await rig.deps.redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  return ranges.find(([start, end]) => slot >= start && slot <= end)![2][1];
}

it(`drains ${MESSAGES_ON_CLUSTER} emails through two send-workers while the email queue's master restarts`, async () => {
  const emailMaster = await masterOf(rig.deps.queues.email.toKey('wait'));
  rig.resend.state.respondAfterMs = 50;
  let accepted = 0;
  const restarted = (async () => {
    await waitUntil(
      () => accepted >= MESSAGES_ON_CLUSTER * 0.4,
      600_000,
      () => 'a third of the load',
    );
    await cluster.restartMaster(emailMaster);
  })();
  const [load] = await Promise.all([sendLoad(rig, MESSAGES_ON_CLUSTER, { onProgress: (n) => (accepted = n) }), restarted]);
  const settled = await waitUntilSettled(rig, 180_000);
  const verdict = await expectNothingLostOrDoubled(rig, load, MESSAGES_ON_CLUSTER);
  report('Redis Cluster, a master restarted', MESSAGES_ON_CLUSTER, load, settled, verdict);
});

/** Mails submitted over SMTP in the second scenario: a fifth of the HTTP load (at least 20). */
const SMTP_MESSAGES = Math.max(20, Math.round(MESSAGES_ON_CLUSTER / 5));

it(`delivers each of ${SMTP_MESSAGES} mails submitted over SMTP to two SMTP replicas exactly once while the email queue's master restarts`, async () => {
  const emailMaster = await masterOf(rig.deps.queues.email.toKey('wait'));
  let accepted = 0;
  const restarted = (async () => {
    await waitUntil(
      () => accepted >= SMTP_MESSAGES * 0.4,
      600_000,
      () => 'a third of the SMTP load',
    );
    await cluster.restartMaster(emailMaster);
  })();
  const [load] = await Promise.all([sendSmtpLoad(rig, SMTP_MESSAGES, { onProgress: (n) => (accepted = n) }), restarted]);
  expect(load.accepted.size).toBe(SMTP_MESSAGES);
  const { db } = rig.deps;
  const subjects = [...load.accepted.keys()];
  // one message per mail (a mail submitted again after a 4xx or a cut connection carried the same Message-ID)...
  await waitUntil(
    async () => (await db.message.count({ where: { orgId: rig.org.orgId, subject: { in: subjects }, status: 'sent' } })) === SMTP_MESSAGES,
    180_000,
    async () => `SMTP mails sent: ${await db.message.count({ where: { orgId: rig.org.orgId, subject: { in: subjects }, status: 'sent' } })} of ${SMTP_MESSAGES}\n${rig.logs()}`,
  );
  const messages = await db.message.findMany({ where: { orgId: rig.org.orgId, subject: { in: subjects } }, select: { id: true, subject: true } });
  expect(messages).toHaveLength(SMTP_MESSAGES);
  expect(new Set(messages.map((m) => m.id))).toEqual(new Set(load.accepted.values()));
  // ...and each handed to the provider once
  const handedOver = rig.resend.state.emails.filter((e) => subjects.includes(e.subject ?? ''));
  const timesEach = new Map<string, number>();
  for (const e of handedOver) timesEach.set(e.subject!, (timesEach.get(e.subject!) ?? 0) + 1);
  expect([...timesEach].filter(([, times]) => times !== 1)).toEqual([]);
  expect(timesEach.size).toBe(SMTP_MESSAGES);
  console.log(`SMTP on the Redis Cluster: ${SMTP_MESSAGES} mails over ${rig.submissionPorts.length} replicas, ${load.retries} submitted again, each sent once`);
});

it('sends scheduled messages once', () => expectScheduledSentOnce(rig));

it('replays an Idempotency-Key repeated to the other API process', () => expectIdempotencyShared(rig));

it('runs each maintenance tick once', () => expectMaintenanceOnce(rig, RELAY_EVERY_MS));

it('keeps the rate limit exact across two API processes', () => expectRateLimitShared(rig));
