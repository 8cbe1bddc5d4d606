import { MESSAGES_ON_CLUSTER } from './messages.ts';
import { sendLoad, startRig, type Rig } from '../faults/rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from '../faults/settle.ts';
import { expectIdempotencyShared, expectMaintenanceOnce, expectRateLimitShared, expectScheduledSentOnce } from './checks.ts';

// Two of every process on one Redis and one Postgres behave as one: each message sent once, each webhook delivered
// once, scheduled messages sent once, the maintenance schedulers ticking once, and one rate limit for both APIs.
const RELAY_EVERY_MS = 500;
let rig: Rig;

beforeAll(async () => {
  // Nothing fails here, so locks long enough that a busy machine's pauses never pass a running job to another worker
  // (the fault rig's short locks would, and the job would run again: at least once, not exactly once).
  const env = { OUTBOX_RELAY_INTERVAL_MS: String(RELAY_EVERY_MS), SEND_WORKER_LOCK_DURATION_MS: '60000', WEBHOOK_WORKER_LOCK_MS: '60000' };
  rig = await startRig({ apis: 2, sendWorkers: 2, webhookWorkers: 2, env });
});
afterAll(() => rig?.close());

it(`sends ${MESSAGES_ON_CLUSTER} emails through two APIs, two send-workers and two webhook-workers, each once`, async () => {
  const load = await sendLoad(rig, MESSAGES_ON_CLUSTER);
  const settled = await waitUntilSettled(rig, 120_000);
  const verdict = await expectNothingLostOrDoubled(rig, load, MESSAGES_ON_CLUSTER);
  report('replicas on one Redis', MESSAGES_ON_CLUSTER, load, settled, verdict);
  // one succeeded attempt per delivery, whichever webhook-worker made it (a request may still be repeated, with the
  // same webhook-id, after an attempt whose outcome could not be recorded: at least once, as documented)
  const succeeded = await rig.deps.db.webhookAttempt.groupBy({
    by: ['deliveryId'],
    where: { delivery: { orgId: rig.org.orgId }, statusCode: { gte: 200, lt: 300 } },
    _count: true,
  });
  expect(succeeded).toHaveLength(verdict.events);
  expect(succeeded.filter((s) => s._count !== 1)).toEqual([]);
  expect(new Set(rig.apis.map((api) => api.proc.pid)).size).toBe(2);
});

it('sends scheduled messages once', () => expectScheduledSentOnce(rig));

it('replays an Idempotency-Key repeated to the other API process', () => expectIdempotencyShared(rig));

it('runs each maintenance tick once', () => expectMaintenanceOnce(rig, RELAY_EVERY_MS));

it('shares one rate limit between two API processes', () => expectRateLimitShared(rig));
