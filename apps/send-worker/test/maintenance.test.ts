import type { Job } from 'bullmq';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { sendMessages } from '@tidings/core';
import { DELETE_EXPIRED_SESSIONS, maintenanceProcessor, PARTITIONS_AND_RETENTION, RECHECK_PENDING_DOMAINS, REQUEUE_STRANDED_MESSAGES } from '../src/maintenance.processor.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

const run = (name: string) => maintenanceProcessor(deps)({ name, id: `repeat:${name}:1`, data: {} } as unknown as Job);

describe('maintenance jobs', () => {
  it('removes expired dashboard sessions and keeps live ones', async () => {
    const { orgId } = await makeOrganization(deps);
    const stamp = Date.now();
    await deps.db.session.createMany({
      data: [
        { id: `ses_old_${stamp}`, tokenHash: `old${stamp}`, userId: 'usr_x', orgId, expiresAt: new Date(stamp - 1000) },
        { id: `ses_new_${stamp}`, tokenHash: `new${stamp}`, userId: 'usr_x', orgId, expiresAt: new Date(stamp + 3_600_000) },
      ],
    });
    const result = (await run(DELETE_EXPIRED_SESSIONS)) as { deleted: number };
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect(await deps.db.session.findMany({ where: { orgId }, select: { id: true } })).toEqual([{ id: `ses_new_${stamp}` }]);
  });

  it('the stranded-message sweep enqueues again a long-queued message whose job Redis lost', async () => {
    const { orgId } = await makeOrganization(deps);
    const [message] = (await sendMessages({ deps, orgId, mode: 'test' }, [{ channelType: 'sms', to: '+14155550123', body: 'hi' }])).data;
    await deps.queues.sms.remove(message!.id);
    await deps.db.message.update({ where: { id: message!.id }, data: { updatedAt: new Date(Date.now() - deps.config.strandedJobAfterMs - 60_000) } });
    const result = (await run(REQUEUE_STRANDED_MESSAGES)) as { requeued: number };
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect((await deps.queues.sms.getJob(message!.id))?.data).toEqual({ messageId: message!.id });
  });

  it('runs the pending-domain re-check', async () => {
    const result = (await run(RECHECK_PENDING_DOMAINS)) as { rechecked: unknown };
    expect(result).toHaveProperty('rechecked');
  });

  it('keeps partitions ahead and applies retention (here 0 days: messages kept, expired idempotency records removed)', async () => {
    const { orgId } = await makeOrganization(deps);
    const past = new Date(Date.now() - 3 * 86_400_000);
    await deps.db.idempotencyRecord.create({ data: { orgId, key: 'old', requestHash: 'h', lockedUntil: past, expiresAt: past, createdAt: past } });
    const result = (await run(PARTITIONS_AND_RETENTION)) as { added: Record<string, string[]>; retention: Record<string, unknown> };
    expect(Object.keys(result.added).sort()).toEqual(['Message', 'MessageStatusEvent', 'WebhookAttempt', 'WebhookDelivery']);
    expect(result.retention.Message).toBeUndefined();
    expect(await deps.db.idempotencyRecord.count({ where: { orgId } })).toBe(0);
  });
});
