import { createWebhook } from '@tidings/core';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let abuserReceiver: WebhookReceiver;
let baseline: Latencies;

/** A's burst: CONTACTS messages as concurrent message.sendBatch requests of 100 (20 of them at full size, 10 in CI). */
async function sendBurst(): Promise<string[]> {
  const batches = await Promise.all(
    Array.from({ length: Math.ceil(CONTACTS / 100) }, (_, b) =>
      call(rig, abuser.key, 'POST', '/messages/batch', {
        messages: Array.from({ length: 100 }, (_, i) => ({ channelType: 'email', to: `a${b * 100 + i}@example.com`, subject: `webhooks ${b}.${i}`, text: 'burst' })),
      }),
    ),
  );
  return batches.flatMap((batch) => (batch.data as { id: string }[]).map((m) => m.id));
}

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  // A's endpoint answers at once: its deliveries wait for the endpoint's cap (5 in flight), not for its answers
  abuserReceiver = await startWebhookReceiver();
  baseline = await probe(rig, 'baseline');
});

afterAll(async () => {
  await abuserReceiver?.close();
  await rig?.close();
});

it(`org B's message.sent webhooks stay within the bound while org A's ${CONTACTS} messages make three times as many deliveries`, async () => {
  // A listens to every step of its messages: each message is about three deliveries in the transactional webhook
  // lane (queued, sent, delivered), most of them parked for a while behind the endpoint's cap
  const webhookId = (await createWebhook(rig.deps, abuser.orgId, { url: `${abuserReceiver.url}/hook`, events: ['message.queued', 'message.sent', 'message.delivered'] }, 'test'))
    .id;
  const ids = await sendBurst();
  await waitFor(() => abuserReceiver.requests.length > 0, 600_000, "A's deliveries to start");
  const during = await probe(rig, 'during a webhook burst');
  const pending = await rig.deps.db.webhookDelivery.count({ where: { webhookId, status: 'pending' } });
  console.log(`A's deliveries still pending when B's last probe was announced: ${pending}`);
  expectWithinBound(`webhook burst of ${CONTACTS} messages`, baseline, during);
  await waitUntil(
    async () => (await rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })) === ids.length,
    600_000,
    async () => `A's burst: ${await rig.deps.db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })} of ${ids.length} sent\n${rig.logs()}`,
  );
  // every one of A's deliveries reached its endpoint, each event once
  await waitUntil(
    async () => (await rig.deps.db.webhookDelivery.count({ where: { webhookId, status: { not: 'succeeded' } } })) === 0,
    600_000,
    async () => `A's deliveries: ${JSON.stringify(await rig.deps.db.webhookDelivery.groupBy({ by: ['status'], where: { webhookId }, _count: true }))}\n${rig.logs()}`,
  );
  const deliveries = await rig.deps.db.webhookDelivery.count({ where: { webhookId } });
  expect(deliveries).toBeGreaterThanOrEqual(2 * ids.length);
  const webhookIds = abuserReceiver.requests.map((r) => r.headers['webhook-id']);
  expect(new Set(webhookIds).size).toBe(deliveries);
});
