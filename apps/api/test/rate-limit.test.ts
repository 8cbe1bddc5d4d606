import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

describe('rate limit', () => {
  it('the 101st request in a minute is 429 with Retry-After and is not executed', async () => {
    const { api, orgId } = await t.org();
    for (let i = 0; i < 99; i += 1) {
      const res = await api.get('/v1/api-keys?limit=1');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('100');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(99 - i));
    }
    const hundredth = await api.post('/v1/api-keys', { name: 'the 100th request' });
    expect(hundredth.status).toBe(201);
    expect(hundredth.headers.get('ratelimit-remaining')).toBe('0');

    const refused = await api.post('/v1/api-keys', { name: 'the 101st request' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    const names = (await t.deps.db.apiKey.findMany({ where: { orgId } })).map((k) => k.name);
    expect(names).toContain('the 100th request');
    expect(names).not.toContain('the 101st request');
  });

  it('every answer carries the RateLimit headers and X-Request-Id, errors and 201s alike', async () => {
    const { api } = await t.org();
    const missing = await api.get('/v1/messages/msg_nothing');
    expect(missing.status).toBe(404);
    const created = await api.post('/v1/api-keys', { name: 'headers' });
    expect(created.status).toBe(201);
    for (const res of [missing, created]) {
      expect(res.headers.get('ratelimit-limit')).toBe('100');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(98);
      expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is shared by replicas (the counter lives in Redis) and counted per key', async () => {
    const local = setupApi({ RATE_LIMIT_PER_MINUTE: '3' });
    const replica = setupApi({ RATE_LIMIT_PER_MINUTE: '3', REDIS_PREFIX: local.deps.config.redisPrefix });
    const { key } = await t.org();
    const { key: otherKey } = await t.org();
    const auth = (k: string) => ({ authorization: `Bearer ${k}` });
    expect((await local.anonymous.get('/v1/api-keys', auth(key))).status).toBe(200);
    expect((await replica.anonymous.get('/v1/api-keys', auth(key))).status).toBe(200);
    expect((await local.anonymous.get('/v1/api-keys', auth(key))).status).toBe(200);
    expect((await replica.anonymous.get('/v1/api-keys', auth(key))).status).toBe(429);
    expect((await replica.anonymous.get('/v1/api-keys', auth(otherKey))).status).toBe(200);
    await Promise.all([local.close(), replica.close()]);
  });

  it("caps all of an organization's keys together at ORG_RATE_LIMIT_PER_MINUTE, another organization untouched", async () => {
    const capped = setupApi({ RATE_LIMIT_PER_MINUTE: '3', ORG_RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const { api } = await capped.org();
      const second = capped.client((await api.post('/v1/api-keys', { name: 'second' })).body.key);
      const third = capped.client((await api.post('/v1/api-keys', { name: 'third' })).body.key);
      // 2 of the organization's 5 are spent creating the keys
      expect((await second.get('/v1/api-keys')).status).toBe(200);
      expect((await third.get('/v1/api-keys')).status).toBe(200);
      expect((await third.get('/v1/api-keys')).status).toBe(200);
      const refused = await second.get('/v1/api-keys');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        code: 'TOO_MANY_REQUESTS',
        message: expect.stringMatching(/^The organization's rate limit of 5 requests per minute, all its keys together, is exceeded; retry in \d+ s$/),
      });
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await (await capped.org()).api.get('/v1/api-keys')).status).toBe(200);
    } finally {
      await capped.close();
    }
  });
});
