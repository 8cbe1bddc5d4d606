import { waitFor } from '@tidings/testing';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let baseline: Latencies;

/** A's burst: CONTACTS messages as concurrent message.sendBatch requests of 100 (20 of them at full size, 10 in CI). */
async function sendBurst(label: string): Promise<string[]> {
  const batches = await Promise.all(
    Array.from({ length: Math.ceil(CONTACTS / 100) }, (_, b) =>
      call(rig, abuser.key, 'POST', '/messages/batch', {
        messages: Array.from({ length: 100 }, (_, i) => ({ channelType: 'email', to: `a${b * 100 + i}@example.com`, subject: `${label} ${b}.${i}`, text: 'burst' })),
      }),
    ),
  );
  return batches.flatMap((batch) => (batch.data as { id: string }[]).map((m) => m.id));
}

async function expectAllSent(ids: string[]) {
  await waitUntil(
    async () => (await rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })) === ids.length,
    600_000,
    async () => `A's burst: ${await rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })} of ${ids.length} sent\n${rig.logs()}`,
  );
}

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  baseline = await probe(rig, 'baseline');
});

afterAll(() => rig?.close());

it(`org B's single emails stay within the bound while org A sends ${CONTACTS} messages in concurrent batches of 100`, async () => {
  const ids = await sendBurst('burst');
  // measured while A's burst drains: from its first message sent
  await waitFor(() => rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } }), 600_000, "A's burst to start sending");
  const during = await probe(rig, 'during a sendBatch burst');
  expectWithinBound(`sendBatch burst of ${CONTACTS}`, baseline, during);
  await expectAllSent(ids);
});
