import { createTestDeps, waitFor } from '@tidings/testing';
import { relayOutbox, unitOfWork, type OutboxItem, type UnitOfWorkDeps } from '../src/index.ts';
import { writeOutbox } from '../src/outbox.store.ts';

/** Adds jobs whose rows were written before, as a unit of work does after its commit. */
const dispatch = (deps: UnitOfWorkDeps, items: OutboxItem[]) => unitOfWork(deps, async (_db, outbox) => outbox.add(items), { transaction: false });

const deps = createTestDeps();
afterAll(() => deps.close());

describe('outbox', () => {
  it('dispatch adds jobs keyed by id and clears their rows', async () => {
    const items = [{ queue: 'email' as const, jobId: `msg_dispatch_${Date.now()}` }];
    await deps.db.$transaction((tx) => writeOutbox(tx, items));
    await dispatch(deps, items);
    const job = await deps.queues.email.getJob(items[0]!.jobId);
    expect(job?.data).toEqual({ messageId: items[0]!.jobId });
    await waitFor(async () => (await deps.db.outboxEntry.count({ where: { jobId: items[0]!.jobId } })) === 0, 5_000, 'its outbox row to be deleted');
  });

  it('a stopping process deletes the outbox rows of the jobs it added', async () => {
    const own = createTestDeps();
    const items = Array.from({ length: 30 }, (_, i) => ({ queue: 'email' as const, jobId: `msg_dispatch_many_${Date.now()}_${i}` }));
    await own.db.$transaction((tx) => writeOutbox(tx, items));
    await Promise.all(items.map((item) => dispatch(own, [item])));
    for (const item of items) expect(await own.queues.email.getJob(item.jobId)).toBeDefined();
    // closed at once: the rows' delete is not left to the timer of a process that is going away
    await own.close();
    expect(await deps.db.outboxEntry.count({ where: { jobId: { in: items.map((i) => i.jobId) } } })).toBe(0);
  });

  it('the relay enqueues rows whose enqueue never happened, once, with their delay', async () => {
    const jobId = `msg_stranded_${Date.now()}`;
    const runAt = new Date(Date.now() + 60_000);
    await deps.db.$transaction((tx) => writeOutbox(tx, [{ queue: 'sms', jobId, runAt }]));
    const moved = await relayOutbox(deps, { graceMs: 0 });
    expect(moved).toBeGreaterThanOrEqual(1);
    const job = await deps.queues.sms.getJob(jobId);
    expect(job?.data).toEqual({ messageId: jobId });
    expect(await job?.isDelayed()).toBe(true);
    expect(await deps.db.outboxEntry.count({ where: { jobId } })).toBe(0);
    expect(await relayOutbox(deps, { graceMs: 0 })).toBe(0);
  });

  it('leaves young rows to their own request', async () => {
    const jobId = `dlv_young_${Date.now()}`;
    await deps.db.$transaction((tx) => writeOutbox(tx, [{ queue: 'webhooks', jobId }]));
    await relayOutbox(deps, { graceMs: 60_000 });
    expect(await deps.db.outboxEntry.count({ where: { jobId } })).toBe(1);
    await deps.db.outboxEntry.deleteMany({ where: { jobId } });
  });
});
