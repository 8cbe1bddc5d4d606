import { createWebhook, newId } from '@tidings/core';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let abuserReceiver: WebhookReceiver;
let baseline: Latencies;

/** Org A's contacts, one template, and a broadcast to every contact through its test key; returns its id once sending. */
async function startAbuserBroadcast(): Promise<string> {
  const template = await call(rig, abuser.key, 'POST', '/templates', { name: 'News', channelType: 'email', subject: 'News for {{ contact.firstName }}', text: 'Hello' });
  const broadcast = await call(rig, abuser.key, 'POST', '/broadcasts', { name: 'Flood', channelType: 'email', templateId: template.id });
  await call(rig, abuser.key, 'POST', `/broadcasts/${broadcast.id}/send`, {});
  return broadcast.id;
}

async function expectBroadcastSent(key: string, id: string, recipients: number) {
  await waitUntil(
    async () => (await call(rig, key, 'GET', `/broadcasts/${id}`)).status === 'sent',
    600_000,
    async () => `broadcast ${id} to finish: ${JSON.stringify((await call(rig, key, 'GET', `/broadcasts/${id}`)).counts)}\n${rig.logs()}`,
  );
  // every recipient's message reached the provider (the sandbox then reports most `delivered`)
  expect((await call(rig, key, 'GET', `/broadcasts/${id}`)).counts).toMatchObject({ recipients, failed: 0, queued: 0 });
  expect(await rig.deps.db.message.count({ where: { broadcastId: id, sentAt: { not: null } } })).toBe(recipients);
}

/** Adds `count` contacts to org A. */
async function addContacts(count: number) {
  const ids = Array.from({ length: count }, () => newId('con'));
  await rig.deps.db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "createdAt", "updatedAt")
    SELECT id, ${abuser.orgId}, 'a' || n || '@' || lower(id) || '.example.com', 'A' || n, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
}

/** Contacts of the warm-up broadcast: it starts the fan-out's render threads and code paths before anything is measured. */
const WARM_UP = 10;

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  abuserReceiver = await startWebhookReceiver();
  // A listens to its messages too: its broadcast's events are as many webhook deliveries
  await createWebhook(rig.deps, abuser.orgId, { url: `${abuserReceiver.url}/hook`, events: ['message.sent'] }, 'test');
  await addContacts(WARM_UP);
  await expectBroadcastSent(abuser.key, await startAbuserBroadcast(), WARM_UP);
  await addContacts(CONTACTS);
  baseline = await probe(rig, 'baseline');
});

afterAll(async () => {
  await abuserReceiver?.close();
  await rig?.close();
});

it(`org B's single emails and their webhooks stay within the bound while org A's broadcast to ${CONTACTS} contacts drains`, async () => {
  const broadcastId = await startAbuserBroadcast();
  // measured while the broadcast drains: from its first message sent (the start's own moment is the bounds' concern)
  await waitFor(() => rig.deps.db.message.count({ where: { broadcastId, sentAt: { not: null } } }), 600_000, "A's broadcast to start sending");
  const during = await probe(rig, 'during a broadcast');
  expectWithinBound(`broadcast of ${CONTACTS}`, baseline, during);
  await expectBroadcastSent(abuser.key, broadcastId, WARM_UP + CONTACTS);
});
