import { createTestDeps, makeOrganization } from '@tidings/testing';
import { encryptSecret, generateWebhookSecret } from '@tidings/webhooks';
import { Worker } from 'bullmq';
import { newId, recordEvents, requeueOverdueDeliveries } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

async function pendingDelivery(nextAttemptAt: Date) {
  const { orgId } = await makeOrganization(deps);
  await deps.db.webhook.create({
    data: { id: newId('whk'), orgId, url: 'http://127.0.0.1:9/', events: ['contact.created'], secretCiphertext: encryptSecret(generateWebhookSecret(), 'k'.repeat(16)) },
  });
  const [item] = await deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: {} }]));
  // the job never reached Redis (and the outbox row is gone too: Redis lost it after the relay moved it)
  await deps.db.outboxEntry.deleteMany({ where: { jobId: item!.jobId } });
  await deps.db.webhookDelivery.update({ where: { id: item!.jobId }, data: { nextAttemptAt } });
  return item!.jobId;
}

describe('requeueOverdueDeliveries', () => {
  it('re-adds the job of a long-overdue pending delivery, and only once', async () => {
    const lost = await pendingDelivery(new Date(Date.now() - 60 * 60_000));
    const recent = await pendingDelivery(new Date(Date.now() - 1_000));
    expect(await requeueOverdueDeliveries(deps)).toBeGreaterThanOrEqual(1);
    // with the delivery's partition key, so the worker reads its month's partition only
    const { createdAt } = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: lost } });
    expect((await deps.queues.webhooks.getJob(lost))?.data).toEqual({ deliveryId: lost, createdAt: createdAt.toISOString() });
    expect(await deps.queues.webhooks.getJob(recent)).toBeUndefined();
    const again = await requeueOverdueDeliveries(deps);
    expect(await deps.queues.webhooks.getJob(lost)).toBeDefined();
    expect(again).toBe(0);
  });

  it('re-adds every lost job when more are overdue than one page holds (after Redis restarted empty)', async () => {
    const dueAt = new Date(Date.now() - 30 * 60_000); // one due time for all: the pages go on by id
    const lost = await Promise.all(Array.from({ length: 5 }, () => pendingDelivery(dueAt)));
    expect(await requeueOverdueDeliveries(deps, { batchSize: 2 })).toBeGreaterThanOrEqual(5);
    for (const id of lost) expect(await deps.queues.webhooks.getJob(id)).toBeDefined();
  });

  it('replaces a job BullMQ gave up on (failed) while its delivery is still pending', async () => {
    const id = await pendingDelivery(new Date(Date.now() - 60 * 60_000));
    await deps.queues.webhooks.add('webhooks', { deliveryId: id }, { jobId: id });
    const worker = new Worker('webhooks', null, { connection: deps.redis, prefix: `${deps.config.redisPrefix}:bull` });
    try {
      let job = await worker.getNextJob('token');
      while (job && job.id !== id) job = await worker.getNextJob('token'); // others of this file's queue, if any
      await job!.moveToFailed(new Error('job stalled more than allowable limit'), 'token');
      expect(await (await deps.queues.webhooks.getJob(id))!.getState()).toBe('failed');
      expect(await requeueOverdueDeliveries(deps)).toBe(1);
      // back in its lane with its organization's turn
      expect(await (await deps.queues.webhooks.getJob(id))!.getState()).toBe('prioritized');
    } finally {
      await worker.close();
    }
  });
});
