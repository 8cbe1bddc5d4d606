// What `tidings status` reports of the stores: a store that refuses connections is reported unreachable as soon as
// it refuses, not after the whole timeout meant for a slow first connection.
import { installStatus } from '@tidings/core';
import { closeQueues, createQueues, createRedis } from '@tidings/queue';
import { createTestDeps, type TestDeps } from '@tidings/testing';

describe('installStatus', () => {
  let deps: TestDeps;
  beforeAll(() => {
    deps = createTestDeps();
  });
  afterAll(() => deps.close());

  it('reports both stores ok, the migrations and every queue when they answer', async () => {
    const status = await installStatus(deps);
    expect(status).toMatchObject({ postgres: 'ok', redis: 'ok', migrations: { pending: [] } });
    expect(Object.keys(status.queues!)).toContain('email');
  });

  it('reports a Redis that refuses connections unreachable on its first refusal, and Postgres still ok', async () => {
    // nothing listens on port 1: every connection is refused at once
    const redis = createRedis('redis://127.0.0.1:1');
    const queues = createQueues(redis, deps.config.redisPrefix);
    for (const queue of Object.values(queues)) queue.on('error', () => {}); // each refusal, expected here
    try {
      const started = Date.now();
      const status = await installStatus({ ...deps, redis, queues });
      expect(status).toMatchObject({ postgres: 'ok', redis: 'unreachable', queues: null, migrations: { pending: [] } });
      // the store timeout is 10 s; refusals come within ioredis's reconnect delay (5 s leaves room for a loaded machine)
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await closeQueues(queues);
      redis.disconnect();
    }
  });
});
