import IORedis from 'ioredis';
import { createApp } from '@tidings/api';
import { createBatchers } from '@tidings/core';
import { createQueues } from '@tidings/queue';
import { apiClient } from '@tidings/testing';
import { startPipeline, waitFor } from './harness.ts';

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline();
});
afterAll(() => h.close());

describe('the outbox relay', () => {
  it('re-enqueues a message whose enqueue was lost because Redis was down when the API committed', async () => {
    // An API whose queue connection is gone (closed, no offline queue): every enqueue fails, as when Redis is down
    // at commit time.
    const deadRedis = new IORedis(h.deps.config.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: false });
    await new Promise((resolve) => deadRedis.once('ready', resolve));
    deadRedis.disconnect();
    const deadQueues = createQueues(deadRedis, h.deps.config.redisPrefix);
    for (const queue of Object.values(deadQueues)) queue.on('error', () => {});
    // its own batchers: the shared statements enqueue on the queues of the dependencies they were made with
    const deadDeps = { ...h.deps, queues: deadQueues };
    const appWithRedisDown = createApp({ ...deadDeps, batchers: createBatchers(deadDeps) });
    const org = await h.testOrg();
    const api = apiClient(appWithRedisDown, org.key);

    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x' });
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe('queued');
    // committed and promised in the outbox, but not in the queue
    expect(await h.deps.db.outboxEntry.count({ where: { jobId: sent.body.id } })).toBe(1);
    expect(await h.deps.queues.email.getJob(sent.body.id)).toBeUndefined();

    // the send-worker's relay (a job scheduler on the maintenance queue) finds it, and the message goes out
    await h.startWorker();
    const delivered = await waitFor(
      async () => {
        const m = (await org.api.get(`/v1/messages/${sent.body.id}`)).body;
        return m.status === 'delivered' ? m : null;
      },
      15_000,
      'the relayed message to be delivered',
    );
    expect(delivered.attempts).toBe(1);
    expect(await h.deps.db.outboxEntry.count({ where: { jobId: sent.body.id } })).toBe(0);
    await Promise.all(Object.values(deadQueues).map((q) => q.close().catch(() => {})));
  });

  it('sets its schedulers up again when Redis comes back without its data', async () => {
    // the worker started by the test above is running; Redis "restarts empty": its schedulers are gone
    const maintenance = h.deps.queues.maintenance;
    const names = async () => (await maintenance.getJobSchedulers()).map((s) => s.key).sort();
    const before = await names();
    expect(before).toEqual(expect.arrayContaining(['outbox-relay', 'requeue-stranded-messages']));
    for (const key of before) await maintenance.removeJobScheduler(key);
    expect(await names()).toEqual([]);
    h.deps.redis.disconnect(true); // drop the connection; it reconnects and says 'ready'
    expect(await waitFor(async () => ((await names()).length === before.length ? names() : null), 10_000, 'the schedulers to be back')).toEqual(before);
  });
});
