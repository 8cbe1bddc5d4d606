import { requeueStrandedMessages, sendMessages, takeRateLimit } from '@tidings/core';
import { bullPrefix, QUEUE_NAMES, type Redis } from '@tidings/queue';
import { createTestDeps, makeOrganization, sampleValue, startRedisCluster, waitFor, type RedisCluster, type TestDeps } from '@tidings/testing';
import { Worker } from 'bullmq';
import { Cluster } from 'ioredis';

// Our Redis code, in process, on a real three-master cluster: two sets of deps stand for two processes.
let cluster: RedisCluster;
let one: TestDeps;
let two: TestDeps;

beforeAll(async () => {
  cluster = await startRedisCluster();
  one = createTestDeps({ REDIS_URL: cluster.url });
  two = createTestDeps({ REDIS_URL: cluster.url, REDIS_PREFIX: one.config.redisPrefix });
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await cluster?.close();
});

const slotOf = (redis: Redis, key: string) => redis.call('CLUSTER', 'KEYSLOT', key) as Promise<number>;

describe('on a Redis Cluster', () => {
  it('connects as a cluster client, keeps each queue in one slot and spreads the queues over the masters', async () => {
    expect(one.redis).toBeInstanceOf(Cluster);
    const slotsOfQueue = await Promise.all(
      QUEUE_NAMES.map(async (name) => new Set(await Promise.all(['wait', 'active', 'job_1', 'events'].map((suffix) => slotOf(one.redis, one.queues[name].toKey(suffix)))))),
    );
    for (const slots of slotsOfQueue) expect(slots.size).toBe(1);
    const ranges = (await one.redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const masterOf = (slot: number) => ranges.find(([start, end]) => slot >= start && slot <= end)![2][1];
    expect(new Set(slotsOfQueue.map((slots) => masterOf([...slots][0]!))).size).toBeGreaterThan(1);
  });

  it("answers readiness and reads each queue's depth for /metrics", async () => {
    expect(await one.readiness()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    await one.queues.broadcasts.add('step', { broadcastId: 'brd_depth', step: 'start' }, { jobId: 'brd_depth' });
    const scrape = await one.metrics.registry.metrics();
    expect(sampleValue(scrape, 'tidings_queue_jobs', { queue: 'broadcasts', state: 'waiting' })).toBe(1);
    expect(sampleValue(scrape, 'tidings_queue_jobs', { queue: 'webhooks', state: 'waiting' })).toBe(0);
  });

  it('runs jobs of every queue through BullMQ workers', async () => {
    const done: string[] = [];
    const workers = (['email', 'sms', 'webhooks'] as const).map(
      (name) =>
        new Worker(name, async (job) => void done.push(`${name}:${job.id}`), {
          connection: two.redis,
          prefix: bullPrefix(two.config.redisPrefix, name, true),
        }),
    );
    try {
      await one.queues.email.add('send', { messageId: 'msg_c1' }, { jobId: 'msg_c1' });
      await one.queues.sms.add('send', { messageId: 'msg_c2' }, { jobId: 'msg_c2' });
      await one.queues.webhooks.add('deliver', { deliveryId: 'dlv_c3' }, { jobId: 'dlv_c3' });
      await waitFor(() => done.length === 3, 15_000, 'three jobs done');
      expect(done.sort()).toEqual(['email:msg_c1', 'sms:msg_c2', 'webhooks:dlv_c3']);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('keeps the rate limit exact when two processes take from it at once', async () => {
    const key = `${one.config.redisPrefix}:rate:key_cluster`;
    const takes = Array.from({ length: 60 }, (_, i) => takeRateLimit(i % 2 ? one : two, key, { limit: 25, windowMs: 60_000 }));
    const results = await Promise.all(takes);
    expect(results.filter((r) => r.isAllowed)).toHaveLength(25);
    expect(Math.min(...results.map((r) => r.remaining))).toBe(0);
  });

  it('announces API key changes to the other process over cluster pub/sub', async () => {
    const heard: string[] = [];
    two.keyChanges.subscribe((keyId) => heard.push(keyId));
    // the subscription is made in the background: announce until it is heard
    await waitFor(
      async () => {
        await one.keyChanges.publish('key_cluster');
        return heard.includes('key_cluster');
      },
      15_000,
      'the key change heard by the other process',
    );
  });

  it('finds the lost jobs of email and SMS messages in one sweep', async () => {
    const { orgId } = await makeOrganization(one);
    const { data } = await sendMessages({ deps: one, orgId, mode: 'test' }, [
      { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' },
      { channelType: 'sms', to: '+14155550123', body: 'hi' },
    ]);
    const [emailId, smsId] = data.map((m) => m!.id) as [string, string];
    await one.queues.email.remove(emailId);
    await one.queues.sms.remove(smsId);
    await one.db.message.updateMany({ where: { id: { in: [emailId, smsId] } }, data: { updatedAt: new Date(Date.now() - 60 * 60_000) } });
    expect(await requeueStrandedMessages(one)).toBeGreaterThanOrEqual(2);
    expect(await one.queues.email.getJob(emailId)).toBeDefined();
    expect(await one.queues.sms.getJob(smsId)).toBeDefined();
  });
});
