import { unitOfWork, watchForEmptyRedis } from '@tidings/core';
import { freePort, startRedisServer, waitFor } from '@tidings/testing';
import { setupApi } from './setup.ts';

// Redis counts every key's rate limit and takes the jobs of new messages. While it is gone a request must not wait
// out the outage (its client gives up, retries, and the first one then goes on to create a second message): it
// answers 503 with Retry-After within REDIS_REQUEST_TIMEOUT_MS and does nothing later.
const email = { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' };

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('while Redis is gone', () => {
  let port: number;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let t: ReturnType<typeof setupApi>;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port);
    t = setupApi({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_REQUEST_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    redis.kill('SIGCONT');
    await t.close();
    redis.kill('SIGKILL');
  });

  it('a Redis that hangs: requests answer 503 with Retry-After after the deadline and never act afterwards', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    expect((await api.post('/v1/messages', email)).status).toBe(202);
    redis.kill('SIGSTOP'); // connections stay open, nothing answers: only a deadline helps
    try {
      const send = await timed(() => api.post('/v1/messages', email));
      expect(send.value.status).toBe(503);
      expect(send.value.body).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/retry in 5 s/) });
      expect(send.value.headers.get('retry-after')).toBe('5');
      expect(send.ms).toBeLessThan(3000);
      const list = await timed(() => api.get('/v1/messages'));
      expect(list.value.status).toBe(503);
      expect(list.ms).toBeLessThan(3000);
      // a wrong key needs no Redis to be refused: its failure goes uncounted
      const badKey = await timed(() => t.client('sk_test_not-a-key').get('/v1/messages'));
      expect(badKey.value.status).toBe(401);
      expect(badKey.ms).toBeLessThan(3000);
    } finally {
      redis.kill('SIGCONT');
    }
    // Redis answers again: the refused send stays refused (one message, the first), and new requests work
    await waitFor(async () => (await api.get('/v1/messages')).status === 200, 10_000, 'the API to answer again');
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(1);
    expect((await api.post('/v1/messages', email)).status).toBe(202);
  });

  it('a Redis that is down: requests answer 503 at once, and all is well once it is back', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    expect((await api.post('/v1/messages', email)).status).toBe(202);
    redis.kill('SIGKILL');
    await waitFor(() => t.deps.redis.status !== 'ready', 10_000, 'the connection to notice');
    const send = await timed(() => api.post('/v1/messages', email));
    expect(send.value.status).toBe(503);
    expect(send.value.headers.get('retry-after')).toBe('5');
    expect(send.ms).toBeLessThan(1500);
    expect((await api.get('/v1/messages')).status).toBe(503);
    // the Resend-compatible door says it in Resend's shape
    const resendSend = await api.post('/emails', { from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    expect(resendSend.status).toBe(503);
    expect(resendSend.body).toMatchObject({ statusCode: 503, name: 'internal_server_error' });
    expect(resendSend.headers.get('retry-after')).toBe('5');
    expect((await t.anonymous.get('/healthz')).status).toBe(200);

    redis = await startRedisServer(port);
    await waitFor(async () => (await api.post('/v1/messages', email)).status === 202, 15_000, 'a send to succeed again');
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(2);
  });

  it('the enqueue after commit gives up within the deadline on a hung Redis rather than holding its request', async () => {
    await waitFor(async () => t.deps.redis.status === 'ready' && (await t.deps.redis.ping()) === 'PONG', 15_000, 'the connection to be ready');
    redis.kill('SIGSTOP');
    try {
      const dispatch = await timed(() => unitOfWork(t.deps, async (_db, outbox) => outbox.add([{ queue: 'email', jobId: 'msg_redisdown' }]), { transaction: false }));
      expect(dispatch.ms).toBeGreaterThanOrEqual(900); // it did wait for the hung Redis, up to the deadline
      expect(dispatch.ms).toBeLessThan(3000);
    } finally {
      redis.kill('SIGCONT');
    }
  });

  it('notices a Redis that came back empty, once, and sweeps after the grace', async () => {
    let sweeps = 0;
    const watch = watchForEmptyRedis(t.deps, 'test-sweeper', 100, async () => {
      sweeps += 1;
    });
    try {
      await waitFor(() => sweeps === 1, 10_000, 'the first sweep (a Redis new to us)');
      redis.kill('SIGKILL');
      await waitFor(() => t.deps.redis.status !== 'ready', 10_000, 'the connection to notice');
      redis = await startRedisServer(port);
      await waitFor(() => sweeps === 2, 15_000, 'the sweep after the empty restart');
      // a reconnect to a Redis that kept its data sweeps nothing
      let reconnects = 0;
      t.deps.redis.once('ready', () => reconnects++);
      t.deps.redis.disconnect(true); // and connects again
      await waitFor(() => reconnects === 1, 10_000, 'the reconnect');
      await expect(waitFor(() => sweeps > 2, 2000, 'a third sweep')).rejects.toThrow('timed out');
    } finally {
      watch.close();
    }
  });
});
