import { newId } from '@tidings/core';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, startFairnessRig } from './fairness.ts';

// sendRate across replicas and a restart: a broadcast paced at RATE messages a minute, sent by two send-worker
// processes, one of them killed and started again a third of the way through, holds its rate within 10 % over the
// whole run and over every minute of it. FAIRNESS_SEND_RATE_SECONDS (180) sets the run's length.
const SECONDS = Number(process.env.FAIRNESS_SEND_RATE_SECONDS || 180);
const RATE = 300; // a minute
const RECIPIENTS = Math.round((RATE * SECONDS) / 60);

let rig: Rig;
let sender: { orgId: string; key: string };
beforeAll(async () => {
  ({ rig, abuser: sender } = await startFairnessRig({ sendWorkers: 2 }));
}, 120_000);
afterAll(() => rig?.close());

it(`holds a broadcast's sendRate of ${RATE} a minute within 10 % over ${SECONDS} s, with two send-workers and one restarted`, async () => {
  const ids = Array.from({ length: RECIPIENTS }, () => newId('con'));
  await rig.deps.db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "createdAt", "updatedAt")
    SELECT id, ${sender.orgId}, 'r' || n || '@paced.example.com', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  const template = await call(rig, sender.key, 'POST', '/templates', { name: 'Paced', channelType: 'email', subject: 'Hi', text: 'Hello {{ contact.email }}' });
  const broadcast = await call(rig, sender.key, 'POST', '/broadcasts', { name: 'Paced', channelType: 'email', templateId: template.id, sendRate: RATE });
  await call(rig, sender.key, 'POST', `/broadcasts/${broadcast.id}/send`, {});

  const sentCount = () => rig.deps.db.message.count({ where: { broadcastId: broadcast.id, sentAt: { not: null } } });
  await waitUntil(
    async () => (await sentCount()) >= RECIPIENTS / 3,
    SECONDS * 1000,
    async () => `a third sent (${await sentCount()})\n${rig.logs()}`,
  );
  await rig.killAndRestartSendWorker(0);
  await waitUntil(
    async () => (await call(rig, sender.key, 'GET', `/broadcasts/${broadcast.id}`)).status === 'sent',
    2 * SECONDS * 1000,
    async () => `the broadcast to be sent (${await sentCount()} of ${RECIPIENTS})\n${rig.logs()}`,
  );

  // when each message reached the provider: its `sent` status entry, once each
  const rows = await rig.deps.db.$queryRaw<{ at: Date }[]>`
    SELECT e."createdAt" AS "at" FROM "MessageStatusEvent" e JOIN "Message" m ON m."id" = e."messageId"
    WHERE m."broadcastId" = ${broadcast.id} AND e."status" = 'sent' AND e."activity" IS NULL ORDER BY e."createdAt"`;
  const times = rows.map((r) => r.at.getTime());
  expect(times).toHaveLength(RECIPIENTS);
  const perMinute = ((times.length - 1) * 60_000) / (times.at(-1)! - times[0]!);
  // the most sent in any minute of the run (from each message's send on)
  let busiestMinute = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + 60_000) j++;
    busiestMinute = Math.max(busiestMinute, j - i);
  }
  console.log(
    `sendRate ${RATE}/min, two send-workers, one restarted: ${times.length} messages over ${((times.at(-1)! - times[0]!) / 1000).toFixed(1)} s = ${perMinute.toFixed(1)}/min; busiest minute ${busiestMinute}`,
  );
  expect(perMinute).toBeGreaterThan(RATE * 0.9);
  expect(perMinute).toBeLessThan(RATE * 1.1);
  expect(busiestMinute).toBeLessThanOrEqual(RATE * 1.1);
});
