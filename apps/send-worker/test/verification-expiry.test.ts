import type { Job } from 'bullmq';
import { checkVerification, createVerification } from '@tidings/core';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { EXPIRE_OVERDUE_VERIFICATIONS, maintenanceProcessor } from '../src/maintenance.processor.ts';

// The expiry sweep: a code that expires unchecked still gets its one `verification.expired` event.
jest.setTimeout(60_000);
const deps = createTestDeps();
afterAll(() => deps.close());

const sweep = async () => (await maintenanceProcessor(deps)({ name: EXPIRE_OVERDUE_VERIFICATIONS, id: 'repeat:expire:1', data: {} } as unknown as Job)) as { expired: number };

/** The code in the verification's latest message (a test key's message keeps it readable). */
async function codeOf(verificationId: string): Promise<string> {
  const verification = await deps.db.verification.findUniqueOrThrow({ where: { id: verificationId } });
  const message = await deps.db.message.findUniqueOrThrow({ where: { id: verification.messageIds.at(-1)! } });
  return /(\d{4,10})/.exec(message.body ?? message.text!)![1]!;
}

const expiredEvents = (orgId: string) => deps.db.event.findMany({ where: { orgId, type: 'verification.expired' } });

it('settles an overdue pending verification expired with one event; pending and approved ones are left alone; a later check adds none', async () => {
  const { orgId } = await makeOrganization(deps, { mode: 'test' });
  const create = (to: string) => createVerification({ deps, orgId, mode: 'test' }, { channelType: 'email', to, codeLength: 6, expiresInSeconds: 600 });
  const [overdue, pending, approved] = [await create('overdue@example.com'), await create('pending@example.com'), await create('approved@example.com')];
  expect((await checkVerification({ deps, orgId, mode: 'test' }, approved.id, await codeOf(approved.id))).status).toBe('approved');
  const past = new Date(Date.now() - 1000);
  await deps.db.verification.updateMany({ where: { id: { in: [overdue.id, approved.id] } }, data: { expiresAt: past } });

  expect((await sweep()).expired).toBeGreaterThanOrEqual(1);
  while ((await sweep()).expired > 0); // other tests' overdue rows, if more than a batch
  const statuses = await deps.db.verification.findMany({ where: { orgId }, select: { id: true, status: true } });
  expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual({ [overdue.id]: 'expired', [pending.id]: 'pending', [approved.id]: 'approved' });
  const events = await expiredEvents(orgId);
  expect(events).toHaveLength(1);
  expect(events[0]!.data).toMatchObject({ id: overdue.id, status: 'expired' });

  // even the right code: the check finds it already expired and writes no second event
  expect(await checkVerification({ deps, orgId, mode: 'test' }, overdue.id, await codeOf(overdue.id))).toEqual({ id: overdue.id, status: 'expired' });
  expect(await sweep()).toEqual({ expired: 0 });
  expect(await expiredEvents(orgId)).toHaveLength(1);
});
