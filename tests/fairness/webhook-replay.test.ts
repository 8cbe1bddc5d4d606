import { createWebhook, newId } from '@tidings/core';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let abuserReceiver: WebhookReceiver;
let webhookId: string;
let baseline: Latencies;

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  // A's endpoint answers in 50 ms: a replay of thousands keeps delivery slots busy for a while
  abuserReceiver = await startWebhookReceiver();
  abuserReceiver.setDefault({ kind: 'slow', delayMs: 50 });
  // a test endpoint: A's key is a test key, which sees only its own mode's endpoints
  webhookId = (await createWebhook(rig.deps, abuser.orgId, { url: `${abuserReceiver.url}/hook`, events: ['message.sent'] }, 'test')).id;
  // CONTACTS past deliveries of A's endpoint, all succeeded an hour ago, each with its event
  const ids = Array.from({ length: CONTACTS }, () => newId('evt'));
  const at = new Date(Date.now() - 60 * 60_000);
  await rig.deps.db.$executeRaw`
    INSERT INTO "Event" ("id", "orgId", "type", "data", "createdAt")
    SELECT id, ${abuser.orgId}, 'message.sent', jsonb_build_object('id', 'msg_' || n), ${at} FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  await rig.deps.db.$executeRaw`
    INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "status", "attempts", "completedAt", "createdAt", "updatedAt")
    SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ${abuser.orgId}, ${webhookId}, id, 'message.sent', 'succeeded', 1, ${at}, ${at}, ${at}
    FROM unnest(${ids}::text[]) AS u(id)`;
  baseline = await probe(rig, 'baseline');
});

afterAll(async () => {
  await abuserReceiver?.close();
  await rig?.close();
});

it(`org B's single emails and their webhooks stay within the bound while org A replays ${CONTACTS} webhook deliveries`, async () => {
  const since = new Date(Date.now() - 2 * 60 * 60_000).toISOString();
  expect(await call(rig, abuser.key, 'POST', `/webhooks/${webhookId}/replay`, { since })).toEqual({ count: CONTACTS });
  // measured while the replay is delivered: from its first delivery (the request's own moment is the bounds' concern)
  await waitFor(() => abuserReceiver.requests.length > 0, 600_000, "A's replay to start delivering");
  const during = await probe(rig, 'during a replay');
  // Webhooks are what a replay competes for. B's sends are logged, not bounded here: the replay's first seconds slow
  // them by the same few seconds with and without lanes (3.9 s before, 3.7 s after, on a machine at load 20), the
  // cost of the replay's own statements, not of a queue.
  expectWithinBound(`webhook replay of ${CONTACTS}`, baseline, during, ['webhook']);
  // A's replay still completes: every delivery reached its endpoint again
  await waitUntil(
    () => abuserReceiver.requests.length >= CONTACTS,
    600_000,
    () => `A's replay: ${abuserReceiver.requests.length} of ${CONTACTS} delivered\n${rig.logs()}`,
  );
  expect(new Set(abuserReceiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(CONTACTS);
});
