import { createTestDeps, makeOrganization } from '@tidings/testing';
import { requeueStrandedMessages, sendMessages } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

const hourAgo = () => new Date(Date.now() - 60 * 60_000);

describe('requeueStrandedMessages', () => {
  it('re-adds the jobs Redis lost for long-unfinished and overdue scheduled messages, and leaves the rest alone', async () => {
    const { orgId } = await makeOrganization(deps);
    const email = (extra: Record<string, unknown> = {}) => ({ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello', ...extra });
    const inFuture = new Date(Date.now() + 3_600_000).toISOString();
    const { data } = await sendMessages({ deps, orgId, mode: 'test' }, [email(), email(), email(), email({ scheduledAt: inFuture }), email({ scheduledAt: inFuture }), email()]);
    const [lostQueued, lostSending, keptJob, lostScheduled, futureScheduled, recent] = data.map((m) => m!.id);

    // Redis forgets every job but one; the database says how long each has waited
    for (const id of [lostQueued, lostSending, lostScheduled, futureScheduled, recent]) await deps.queues.email.remove(id!);
    await deps.db.message.updateMany({ where: { id: { in: [lostQueued!, keptJob!] } }, data: { updatedAt: hourAgo() } });
    await deps.db.message.update({ where: { id: lostSending }, data: { status: 'sending', updatedAt: hourAgo() } });
    await deps.db.message.update({ where: { id: lostScheduled }, data: { scheduledAt: hourAgo() } });
    const sentLongAgo = (await sendMessages({ deps, orgId, mode: 'test' }, [email()])).data[0]!.id;
    await deps.queues.email.remove(sentLongAgo);
    await deps.db.message.update({ where: { id: sentLongAgo }, data: { status: 'sent', updatedAt: hourAgo() } });

    expect(await requeueStrandedMessages(deps)).toBeGreaterThanOrEqual(3);
    for (const id of [lostQueued, lostSending, lostScheduled]) expect((await deps.queues.email.getJob(id!))?.data).toEqual({ messageId: id });
    // not overdue, not unfinished, or its job still there: untouched
    for (const id of [futureScheduled, recent, sentLongAgo]) expect(await deps.queues.email.getJob(id!)).toBeUndefined();
    expect(await deps.queues.email.getJob(keptJob!)).toBeDefined();

    // a second run finds every job in place
    const again = await requeueStrandedMessages(deps);
    expect(again).toBe(0);
  });

  it('pages through more overdue messages than one batch', async () => {
    const { orgId } = await makeOrganization(deps);
    const { data } = await sendMessages(
      { deps, orgId, mode: 'test' },
      Array.from({ length: 7 }, () => ({ channelType: 'sms', to: '+14155550123', body: 'hi' })),
    );
    const ids = data.map((m) => m!.id);
    for (const id of ids) await deps.queues.sms.remove(id);
    await deps.db.message.updateMany({ where: { id: { in: ids } }, data: { updatedAt: hourAgo() } });
    await requeueStrandedMessages(deps, { batchSize: 3 });
    for (const id of ids) expect(await deps.queues.sms.getJob(id)).toBeDefined();
  });
});
