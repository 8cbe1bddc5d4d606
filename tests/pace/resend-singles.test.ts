import { sendLoad, waitUntil, type Rig } from '../faults/rig.ts';
import { call, liveOrgWithContacts, p99, RESEND_RATE, runBroadcast, startPaceRig } from './pace.ts';

// Single sends against a Resend that allows RESEND_RATE requests a second: a burst far beyond the limit is delivered
// whole, and single sends spaced 500 ms apart keep their pace while a broadcast uses every request the limit allows
// (its sends go 20 to a call here, so that it lasts long enough: the provider's budget is what it saturates).
const SINGLES = Number(process.env.PACE_SINGLES || 200);
const SPACED = 20;
const SATURATING_CONTACTS = Number(process.env.PACE_SATURATING_CONTACTS || 2000);

let rig: Rig;
beforeAll(async () => {
  rig = await startPaceRig({ env: { SEND_WORKER_BULK_CONCURRENCY: '20' } });
});
afterAll(() => rig?.close());

it(`delivers a burst of ${SINGLES} single sends, none failed`, async () => {
  const load = await sendLoad(rig, SINGLES, { concurrency: 50 });
  const ids = [...load.accepted.values()];
  const db = rig.deps.db;
  await waitUntil(
    async () => (await db.message.count({ where: { id: { in: ids }, status: { notIn: ['queued', 'sending'] } } })) === ids.length,
    600_000,
    async () => `the burst to finish: ${await db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })} sent\n${rig.logs()}`,
  );
  expect(await db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })).toBe(SINGLES);
  expect(await db.message.count({ where: { id: { in: ids }, status: 'failed' } })).toBe(0);
  // waiting for the limit is never recorded as a provider's failure
  expect(await db.messageStatusEvent.count({ where: { messageId: { in: ids }, errorCode: { not: null } } })).toBe(0);
});

it(`keeps single sends within 2 s (p99) while a broadcast saturates Resend's ${RESEND_RATE} requests a second`, async () => {
  const org = await liveOrgWithContacts(rig, SATURATING_CONTACTS);
  const latencies: number[] = [];
  let lastSingleAt = 0;
  const run = await runBroadcast(rig, org, SATURATING_CONTACTS, async () => {
    const startedAt = new Map<string, number>();
    for (let i = 0; i < SPACED; i++) {
      const t0 = Date.now();
      const message = await call(rig, rig.org.key, 'POST', '/messages', { channelType: 'email', to: `reset${i}@example.com`, subject: `Reset ${i}`, text: 'Your link' });
      startedAt.set(message.id, t0);
      await waitUntil(
        () => Date.now() >= t0 + 500,
        5_000,
        () => 'the next send time',
      );
    }
    lastSingleAt = Date.now();
    const ids = [...startedAt.keys()];
    const rows = await waitUntil(
      async () => (await rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })) === ids.length,
      600_000,
      () => `the single sends to be sent\n${rig.logs()}`,
    ).then(() => rig.deps.db.message.findMany({ where: { id: { in: ids } }, select: { id: true, sentAt: true } }));
    for (const row of rows) latencies.push(row.sentAt!.getTime() - startedAt.get(row.id)!);
  });
  console.log(`single sends during a broadcast of ${SATURATING_CONTACTS} (${run.seconds.toFixed(1)} s): p99 ${p99(latencies)} ms, max ${Math.max(...latencies)} ms`);
  expect(latencies).toHaveLength(SPACED);
  // the broadcast was still sending when the last single send was made: every one of them met it
  expect(run.lastSentAt).toBeGreaterThan(lastSingleAt);
  expect(run.failed).toBe(0);
  expect(p99(latencies)).toBeLessThanOrEqual(2000);
});
