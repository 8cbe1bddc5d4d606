import { createWebhook } from '@tidings/core';
import { mostAttemptsInFlight, startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let hanging: WebhookReceiver;
let webhookId: string;
let baseline: Latencies;

/**
 * A's messages: a tenth of the scenario's size at once (10 to 30: more only lengthens the final drain, which waits
 * out the retries' backoff), then one every SEND_EVERY_MS while B measures.
 */
const BURST = Math.min(30, Math.max(10, Math.round(CONTACTS / 10)));
const SEND_EVERY_MS = 250;
/** Each delivery to the hanging endpoint waits this long for an answer (the rig's timeout; production's is 15 s). */
const TIMEOUT_MS = 2000;
/** At most this many of them at once (the rig's workers have 20 slots of their own each). */
const ENDPOINT_CAP = 5;

async function sendAsAbuser(i: number): Promise<void> {
  await call(rig, abuser.key, 'POST', '/messages', { channelType: 'email', from: 'a@abuser.test', to: `a${i}@example.com`, subject: `A ${i}`, text: 'event' });
}

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig({ env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CAP) } }));
  // A's endpoint never answers: every attempt holds its slot for the whole timeout, then is retried
  hanging = await startWebhookReceiver();
  hanging.setDefault({ kind: 'hang' });
  // a test endpoint, as A's key is a test key: its messages' events go to endpoints of their mode only
  webhookId = (await createWebhook(rig.deps, abuser.orgId, { url: `${hanging.url}/hook`, events: ['message.queued', 'message.sent'] }, 'test')).id;
  baseline = await probe(rig, 'baseline');
});

afterAll(async () => {
  await hanging?.close();
  await rig?.close();
});

it(`org B's webhooks stay within the bound while org A's endpoint hangs and A sends ${BURST} messages and more`, async () => {
  for (let i = 0; i < BURST; i++) await sendAsAbuser(i);
  await waitUntil(
    () => hanging.requests.length > 0,
    120_000,
    () => `A's deliveries to start\n${rig.logs()}`,
  );
  // A keeps making events (two per message) while B measures
  let sending = true;
  let sent = BURST;
  const producer = (async () => {
    while (sending) {
      await sendAsAbuser(sent++);
      await new Promise((resolve) => setTimeout(resolve, SEND_EVERY_MS));
    }
  })();
  const during = await probe(rig, 'while an endpoint hangs').finally(() => {
    sending = false;
  });
  await producer;
  // how often B's delivery jobs ran (a job run again waited for a slot of its endpoint, or for its claim)
  const bJobs = await rig.deps.queues.webhooks.getJobs(['completed']);
  const bDeliveries = new Set((await rig.deps.db.webhookDelivery.findMany({ where: { orgId: rig.org.orgId }, select: { id: true } })).map((d) => d.id));
  const runs = bJobs.filter((j) => bDeliveries.has(j.data.deliveryId)).map((j) => `${j.attemptsStarted}/${j.stalledCounter}`);
  console.log(`B's delivery jobs, runs/stalls: ${runs.join(' ')}`);
  expectWithinBound(`an endpoint hanging while its organization sends ${BURST}+`, baseline, during, ['webhook']);
  const deliveries = await rig.deps.db.webhookDelivery.count({ where: { webhookId } });
  expect(deliveries).toBe(2 * sent);
  // the endpoint held its own slots only: never more requests waiting on it than its cap (a request ends by the
  // timeout, well within a slot's lease; the slot is freed when the request ends, before its outcome is recorded)
  expect(await rig.deps.db.webhookAttempt.count({ where: { delivery: { webhookId } } })).toBeGreaterThan(0);
  const mostInFlight = await mostAttemptsInFlight(rig.deps, webhookId);
  console.log(`most attempts in flight to the hanging endpoint: ${mostInFlight} (cap ${ENDPOINT_CAP})`);
  expect(mostInFlight).toBeLessThanOrEqual(ENDPOINT_CAP);

  // A's deliveries retry as designed: once the endpoint answers again, every one of them arrives, each event once
  hanging.setDefault({ kind: 'status', status: 200 });
  await waitUntil(
    async () => (await rig.deps.db.webhookDelivery.count({ where: { webhookId, status: 'succeeded' } })) === deliveries,
    600_000,
    async () => `A's deliveries: ${JSON.stringify(await rig.deps.db.webhookDelivery.groupBy({ by: ['status'], where: { webhookId }, _count: true }))}\n${rig.logs()}`,
  );
  expect(new Set(hanging.requests.map((r) => r.headers['webhook-id'])).size).toBe(deliveries);
});
