import { MESSAGES_ON_CLUSTER } from './messages.ts';
import { sendLoad, startRig, type Rig } from '../faults/rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from '../faults/settle.ts';
import { expectMaintenanceOnce, expectRateLimitShared, expectScheduledSentOnce } from './checks.ts';

// Two of every process on one Redis and one Postgres behave as one: each message sent once, each webhook delivered
// once, scheduled messages sent once, the maintenance schedulers ticking once, and one rate limit for both APIs.
const RELAY_EVERY_MS = 500;
let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ apis: 2, sendWorkers: 2, webhookWorkers: 2, env: { OUTBOX_RELAY_INTERVAL_MS: String(RELAY_EVERY_MS) } });
});
afterAll(() => rig?.close());

it(`sends ${MESSAGES_ON_CLUSTER} emails through two APIs, two send-workers and two webhook-workers, each once`, async () => {
  const load = await sendLoad(rig, MESSAGES_ON_CLUSTER);
  const settled = await waitUntilSettled(rig, 120_000);
  const verdict = await expectNothingLostOrDoubled(rig, load, MESSAGES_ON_CLUSTER);
  report('replicas on one Redis', MESSAGES_ON_CLUSTER, load, settled, verdict);
  expect(new Set(rig.apis.map((api) => api.proc.pid)).size).toBe(2);
});

it('sends scheduled messages once', () => expectScheduledSentOnce(rig));

it('runs each maintenance tick once', () => expectMaintenanceOnce(rig, RELAY_EVERY_MS));

it('shares one rate limit between two API processes', () => expectRateLimitShared(rig));
