import { createTestDeps } from '@tidings/testing';
import { dispatchOutbox, relayOutbox, writeOutbox } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

describe('outbox', () => {
  it('dispatch adds jobs keyed by id and clears their rows', async () => {
    const items = [{ queue: 'email' as const, jobId: `msg_dispatch_${Date.now()}` }];
    await deps.db.$transaction((tx) => writeOutbox(tx, items));
    await dispatchOutbox(deps, items);
    const job = await deps.queues.email.getJob(items[0]!.jobId);
    expect(job?.data).toEqual({ messageId: items[0]!.jobId });
    expect(await deps.db.outboxEntry.count({ where: { jobId: items[0]!.jobId } })).toBe(0);
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
