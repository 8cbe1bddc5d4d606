import { waitUntil, type Rig } from '../faults/rig.ts';
import { liveOrgWithContacts, MESSAGES, RESEND_BATCH, RESEND_RATE, resendCounts, runBroadcast, startPaceRig } from './pace.ts';

// Against a Resend that allows RESEND_RATE requests a second, a broadcast reaches every recipient through the batch
// endpoint with no failure and no duplicate, within twice the batched limit plus its fan-out; then the same with two
// send-workers sharing one limiter.
let rig: Rig;
beforeAll(async () => {
  rig = await startPaceRig();
});
afterAll(() => rig?.close());

/** Twice what the limit allows when every call carries a full batch. */
const boundSeconds = (messages: number) => (2 * messages) / (RESEND_RATE * RESEND_BATCH);

async function expectPacedBroadcast(label: string) {
  const before = resendCounts(rig);
  const org = await liveOrgWithContacts(rig, MESSAGES);
  const run = await runBroadcast(rig, org, MESSAGES);
  const after = resendCounts(rig);
  const calls = after.accepted + after.rateLimited - before.accepted - before.rateLimited;
  const rateLimited = after.rateLimited - before.rateLimited;
  console.log(
    `${label}: ${run.sent} sent, ${run.failed} failed in ${run.seconds.toFixed(1)} s (fan-out ${run.fanOutSeconds.toFixed(1)} s, bound ${boundSeconds(MESSAGES).toFixed(1)} s + fan-out); ${calls} calls (${after.batches - before.batches} batches), ${rateLimited} answered 429`,
  );
  expect({ sent: run.sent, failed: run.failed, duplicates: after.duplicates, sentEarly: run.sentEarly }).toEqual({ sent: MESSAGES, failed: 0, duplicates: 0, sentEarly: false });
  expect(after.emails - before.emails).toBe(MESSAGES);
  expect(rateLimited).toBeLessThanOrEqual(Math.floor(calls * 0.01));
  expect(run.seconds).toBeLessThanOrEqual(boundSeconds(MESSAGES) + run.fanOutSeconds);
}

it(`delivers a broadcast of ${MESSAGES} through Resend at ${RESEND_RATE} requests a second: all sent, none failed or twice, at most 1% answered 429`, async () => {
  await expectPacedBroadcast('one send-worker');
});

it('holds the same limit across two send-workers', async () => {
  rig.addSendWorker();
  await waitUntil(
    async () => (await rig.deps.queues['email-bulk'].getWorkersCount()) >= 2,
    180_000,
    () => `a second send-worker to start:\n${rig.logs()}`,
  );
  await expectPacedBroadcast('two send-workers');
});
