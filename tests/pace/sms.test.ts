import { makeOrganization } from '@tidings/testing';
import { newId } from '@tidings/core';
import { waitUntil, type Rig } from '../faults/rig.ts';
import { call, startPaceRig } from './pace.ts';

// A Telnyx that lets each sending number send 1 message a second (a US long code on 10DLC) and answers 429 beyond:
// SMS from one number go out at that pace with none failed; with a pool of two numbers and no `from`, about twice as
// fast, each recipient always from the same number.
const SMS = Number(process.env.PACE_SMS || 60);

let rig: Rig;
beforeAll(async () => {
  rig = await startPaceRig();
  rig.telnyx.state.perSenderLimit.ratePerSecond = 1;
});
afterAll(() => rig?.close());

/** A live organization whose numbers are `count` US long codes (not paced by hand: their type's 1 a second). */
async function orgWithNumbers(count: number) {
  const org = await makeOrganization(rig.deps, { mode: 'live' });
  const numbers = Array.from({ length: count }, () => `+1628${String(Math.floor(2_000_000 + Math.random() * 7_000_000))}`);
  for (const [i, number] of numbers.entries()) {
    await rig.deps.db.phoneNumber.create({ data: { id: newId('pn'), orgId: org.orgId, number, isDefault: i === 0, type: 'local', country: 'US', provider: 'telnyx' } });
  }
  return { ...org, numbers };
}

/** Sends one SMS to each of `recipients` (no `from`), waits until all are finished; the rate they went out at, and who sent each. */
async function sendAll(org: { key: string }, recipients: string[]) {
  const ids: string[] = [];
  for (const [i, to] of recipients.entries()) ids.push((await call(rig, org.key, 'POST', '/messages', { channelType: 'sms', to, body: `Code ${i}` })).id);
  const db = rig.deps.db;
  await waitUntil(
    async () => (await db.message.count({ where: { id: { in: ids }, status: { notIn: ['queued', 'sending'] } } })) === ids.length,
    600_000,
    async () => `the SMS to finish: ${await db.message.count({ where: { id: { in: ids }, sentAt: { not: null } } })} sent\n${rig.logs()}`,
  );
  const rows = await db.message.findMany({ where: { id: { in: ids } }, select: { to: true, from: true, status: true, sentAt: true } });
  const sentAt = rows.filter((r) => r.sentAt).map((r) => r.sentAt!.getTime());
  const seconds = (Math.max(...sentAt) - Math.min(...sentAt)) / 1000;
  return { rows, failed: rows.filter((r) => r.status === 'failed').length, sent: sentAt.length, seconds, rate: (sentAt.length - 1) / seconds };
}

let oneNumberRate = 0;

it(`sends ${SMS} SMS from one number at its 1 a second: none failed, at least 0.9 of the rate`, async () => {
  const org = await orgWithNumbers(1);
  const run = await sendAll(
    org,
    Array.from({ length: SMS }, (_, i) => `+1415${String(2_000_000 + i)}`),
  );
  console.log(`one number: ${run.sent} sent, ${run.failed} failed in ${run.seconds.toFixed(1)} s (${run.rate.toFixed(2)} a second), ${rig.telnyx.state.rateLimited} answered 429`);
  expect({ sent: run.sent, failed: run.failed }).toEqual({ sent: SMS, failed: 0 });
  expect(run.rate).toBeGreaterThanOrEqual(0.9);
  oneNumberRate = run.rate;
});

it('sends about twice as fast from a pool of two numbers, each recipient always from the same one', async () => {
  const org = await orgWithNumbers(2);
  // each recipient twice: the second time it gets the number that sent it the first
  const recipients = Array.from({ length: SMS / 2 }, (_, i) => `+1415${String(3_000_000 + i)}`);
  const first = await sendAll(org, recipients);
  const second = await sendAll(org, recipients);
  console.log(`two numbers: ${first.sent + second.sent} sent, ${first.failed + second.failed} failed; first round ${first.rate.toFixed(2)} a second`);
  expect(first.failed + second.failed).toBe(0);
  const senderOf = new Map(first.rows.map((r) => [r.to, r.from]));
  expect(new Set(senderOf.values())).toEqual(new Set(org.numbers));
  expect(second.rows.every((r) => senderOf.get(r.to) === r.from)).toBe(true);
  // two numbers at 1 a second each: about 2 a second (a recipient hash never splits them exactly in half)
  expect(first.rate).toBeGreaterThanOrEqual(1.5);
  expect(first.rate).toBeGreaterThan(oneNumberRate * 1.4);
});
