import { startRedisCluster, type RedisCluster } from '@tidings/testing';
import { sendLoad, startRig, waitUntil, type Rig } from '../faults/rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from '../faults/settle.ts';
import { expectIdempotencyShared, expectMaintenanceOnce, expectRateLimitShared, expectScheduledSentOnce } from './checks.ts';
import { MESSAGES_ON_CLUSTER } from './messages.ts';

// The whole product on a real three-master Redis Cluster: two APIs, two send-workers, a webhook-worker. The master
// holding the email queue is killed and started again mid-load; nothing is lost or doubled.
const RELAY_EVERY_MS = 500;
let cluster: RedisCluster;
let rig: Rig;

beforeAll(async () => {
  cluster = await startRedisCluster();
  // No worker dies here, so locks long enough that a busy machine's pauses never pass a running job to another worker
  // (the fault rig's short locks would, and the job would run again: at least once, not exactly once).
  const env = { OUTBOX_RELAY_INTERVAL_MS: String(RELAY_EVERY_MS), STRANDED_JOB_AFTER_MS: '4000', SEND_WORKER_LOCK_DURATION_MS: '60000', WEBHOOK_WORKER_LOCK_MS: '60000' };
  rig = await startRig({ redisUrl: cluster.url, apis: 2, sendWorkers: 2, env });
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

it('sends scheduled messages once', () => expectScheduledSentOnce(rig));

it('replays an Idempotency-Key repeated to the other API process', () => expectIdempotencyShared(rig));

it('runs each maintenance tick once', () => expectMaintenanceOnce(rig, RELAY_EVERY_MS));

it('keeps the rate limit exact across two API processes', () => expectRateLimitShared(rig));
