import type { Job } from 'bullmq';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { DELETE_EXPIRED_SESSIONS, maintenanceProcessor, RECHECK_PENDING_DOMAINS } from '../src/maintenance.processor.ts';

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

  it('runs the pending-domain re-check', async () => {
    const result = (await run(RECHECK_PENDING_DOMAINS)) as { rechecked: unknown };
    expect(result).toHaveProperty('rechecked');
  });
});
