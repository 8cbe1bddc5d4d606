import { allowLiveKeys, ORGANIZATION_SUSPENDED_MESSAGE, setOrganizationSuspended } from '@tidings/core';
import { apiClient, waitFor } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

describe('apiKey operations', () => {
  it('creates a key shown once, lists it by prefix, and the new key works', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'CI', permission: 'full' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_live_[A-Za-z0-9_-]{32}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 12));
    expect(created.body.id).toMatch(/^key_/);

    const list = await api.get('/v1/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(list.body.data[0]).toMatchObject({ id: created.body.id, name: 'CI', state: 'enabled', mode: 'live' });

    const stored = await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    const withNewKey = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` });
    expect(withNewKey.status).toBe(200);
  });

  it('records lastUsedAt when a key is used', async () => {
    const { api, keyId } = await t.org();
    await api.get('/v1/api-keys');
    // lastUsedAt is written after the answer, off the request path
    const row = await waitFor(
      async () => {
        const key = await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
        return key.lastUsedAt ? key : null;
      },
      5_000,
      'lastUsedAt to be recorded',
    );
    expect(row.lastUsedAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('a test key creates test keys and may not create live keys', async () => {
    const { api } = await t.org({ mode: 'test' });
    const created = await api.post('/v1/api-keys', { name: 'sandbox' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_test_/);
    const live = await api.post('/v1/api-keys', { name: 'live', mode: 'live' });
    expect(live.status).toBe(403);
    expect(live.body).toEqual({ code: 'FORBIDDEN', message: 'A test key cannot create live keys' });
  });

  it('a test key never sees, rotates, disables, enables or deletes a live key: its id is 404', async () => {
    const { api, key: liveKey, keyId: liveId } = await t.org();
    const test = await api.post('/v1/api-keys', { name: 'sandbox', mode: 'test' });
    expect(test.body.key).toMatch(/^sk_test_/);
    const asTest = apiClient(t.app, test.body.key);

    const listed = await asTest.get('/v1/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([test.body.id]);

    const attempts = await Promise.all([
      asTest.post(`/v1/api-keys/${liveId}/rotate`),
      asTest.post(`/v1/api-keys/${liveId}/rotate`, { immediately: true }),
      asTest.post(`/v1/api-keys/${liveId}/disable`),
      asTest.post(`/v1/api-keys/${liveId}/enable`),
      asTest.delete(`/v1/api-keys/${liveId}`),
    ]);
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'API key not found' });
    }
    const live = await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: liveId } });
    expect(live).toMatchObject({ disabledAt: null, deletedAt: null, previousKeyHash: null });
    expect((await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${liveKey}` })).status).toBe(200);

    // its own kind it manages as before
    const rotatedOwn = await asTest.post(`/v1/api-keys/${test.body.id}/rotate`, { immediately: true });
    expect(rotatedOwn.status).toBe(200);
    expect(rotatedOwn.body.key).toMatch(/^sk_test_/);
  });

  it('an organization created for testing gets no live key until an operator allows it', async () => {
    const { api, orgId } = await t.org();
    await t.deps.db.organization.update({ where: { id: orgId }, data: { liveKeysAllowed: false } });
    const refused = await api.post('/v1/api-keys', { name: 'live', mode: 'live' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect(refused.body.message).toMatch(/created for testing: live keys are not allowed/);
    // without a mode it gets a test key
    const defaulted = await api.post('/v1/api-keys', { name: 'default' });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.mode).toBe('test');

    await allowLiveKeys(t.deps, orgId);
    const allowed = await api.post('/v1/api-keys', { name: 'live', mode: 'live' });
    expect(allowed.status).toBe(201);
    expect(allowed.body.key).toMatch(/^sk_live_/);
  });

  it('caps the keys of an organization: the one past API_KEYS_PER_ORG_MAX is 409 naming the limit', async () => {
    const capped = setupApi({ API_KEYS_PER_ORG_MAX: '3' });
    try {
      const { api } = await capped.org();
      expect((await api.post('/v1/api-keys', { name: 'two' })).status).toBe(201);
      const third = await api.post('/v1/api-keys', { name: 'three' });
      expect(third.status).toBe(201);
      const fourth = await api.post('/v1/api-keys', { name: 'four' });
      expect(fourth.status).toBe(409);
      expect(fourth.body).toEqual({ code: 'CONFLICT', message: 'An organization may have at most 3 API keys; delete one it no longer uses first' });
      // concurrent creates cannot pass the cap together
      expect((await api.delete(`/v1/api-keys/${third.body.id}`)).status).toBe(204);
      const racing = await Promise.all(['a', 'b', 'c'].map((name) => api.post('/v1/api-keys', { name })));
      expect(racing.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    } finally {
      await capped.close();
    }
  });

  it('rotation: new secret once, old one works for 24 h, then stops', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'rotating' });
    const rotated = await api.post(`/v1/api-keys/${created.body.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(created.body.key);
    expect(rotated.body.previousKeyExpiresAt).not.toBeNull();

    const usingOld = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` });
    expect(usingOld.status).toBe(200);
    const usingNew = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${rotated.body.key}` });
    expect(usingNew.status).toBe(200);

    // a day later (on a separate replica, so no cache) the old secret is refused
    const later = setupApi();
    const dayAfter = Date.now() + 24 * 60 * 60 * 1000 + 1000;
    later.deps.now = () => new Date(dayAfter);
    expect((await later.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` })).status).toBe(401);
    expect((await later.anonymous.get('/v1/api-keys', { authorization: `Bearer ${rotated.body.key}` })).status).toBe(200);
    await later.close();
  });

  it('rotation with immediately: the old secret stops at once', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'leaked' });
    const rotated = await api.post(`/v1/api-keys/${created.body.id}/rotate`, { immediately: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previousKeyExpiresAt).toBeNull();
    expect((await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` })).status).toBe(401);
  });

  it('disable, delete and rotation refuse the key at once on another replica with a warm cache; enable brings it back', async () => {
    const { api } = await t.org();
    // a second replica: its own app, deps and key cache, sharing Redis (same prefix) and Postgres
    const other = setupApi({ REDIS_PREFIX: t.deps.config.redisPrefix });
    try {
      const as = (key: string) => ({ authorization: `Bearer ${key}` });
      const statusWithin = async (key: string, expected: number, deadlineMs = 500) => {
        let last = 0;
        const reached = async () => {
          last = (await other.anonymous.get('/v1/api-keys', as(key))).status;
          return last === expected;
        };
        await waitFor(reached, deadlineMs).catch(() => undefined); // the caller's expect shows the last status
        return last;
      };
      const [toDisable, toDelete, toRotate] = await Promise.all(['to disable', 'to delete', 'to rotate'].map((name) => api.post('/v1/api-keys', { name })));
      for (const created of [toDisable, toDelete, toRotate]) {
        // warm both caches
        expect((await t.anonymous.get('/v1/api-keys', as(created.body.key))).status).toBe(200);
        expect((await other.anonymous.get('/v1/api-keys', as(created.body.key))).status).toBe(200);
      }

      const disabled = await api.post(`/v1/api-keys/${toDisable.body.id}/disable`);
      expect(disabled.body.state).toBe('disabled');
      expect(await statusWithin(toDisable.body.key, 401)).toBe(401);
      expect((await t.anonymous.get('/v1/api-keys', as(toDisable.body.key))).status).toBe(401);

      expect((await api.delete(`/v1/api-keys/${toDelete.body.id}`)).status).toBe(204);
      expect(await statusWithin(toDelete.body.key, 401)).toBe(401);

      const rotated = await api.post(`/v1/api-keys/${toRotate.body.id}/rotate`, { immediately: true });
      expect(rotated.status).toBe(200);
      expect(await statusWithin(toRotate.body.key, 401)).toBe(401);
      expect(await statusWithin(rotated.body.key, 200)).toBe(200);

      const enabled = await api.post(`/v1/api-keys/${toDisable.body.id}/enable`);
      expect(enabled.body.state).toBe('enabled');
      expect(await statusWithin(toDisable.body.key, 200)).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('delete is final: 204, then 401, absent from the list, cannot be enabled', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'doomed' });
    const deleted = await api.delete(`/v1/api-keys/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect((await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` })).status).toBe(401);
    expect((await api.get('/v1/api-keys')).body.data.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
    const enable = await api.post(`/v1/api-keys/${created.body.id}/enable`);
    expect(enable.status).toBe(404);
    expect(enable.body).toEqual({ code: 'NOT_FOUND', message: 'API key not found' });
  });

  it("another organization's key id is 404 for every operation and changes nothing", async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const target = await owner.api.post('/v1/api-keys', { name: 'mine' });
    const id = target.body.id;
    const attempts = [
      stranger.api.post(`/v1/api-keys/${id}/rotate`),
      stranger.api.post(`/v1/api-keys/${id}/disable`),
      stranger.api.post(`/v1/api-keys/${id}/enable`),
      stranger.api.delete(`/v1/api-keys/${id}`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'API key not found' });
    }
    const listed = await stranger.api.get('/v1/api-keys');
    expect(listed.body.data.map((k: { id: string }) => k.id)).not.toContain(id);
    expect((await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${target.body.key}` })).status).toBe(200);
  });

  it('a sending key gets 403 FORBIDDEN on apiKey operations', async () => {
    const { api } = await t.org();
    const sending = await api.post('/v1/api-keys', { name: 'sender', permission: 'sending' });
    const res = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${sending.body.key}` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('a suspended organization gets 403 at once on a warm cache, sends included, and nothing of it is read; resumed, its keys work again', async () => {
    const { key, orgId, api } = await t.org();
    const bystander = await t.org();
    const as = { authorization: `Bearer ${key}` };
    const status = async () => (await t.anonymous.get('/v1/api-keys', as)).status;
    expect(await status()).toBe(200); // the key is cached now

    await setOrganizationSuspended(t.deps, orgId, true);
    // well within API_KEY_CACHE_TTL_MS (2 s): the cache is told through Redis, not left to expire
    await waitFor(async () => (await status()) === 403, 500, 'the suspended key to be refused');
    const send = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    expect(send.status).toBe(403);
    expect(send.body).toEqual({ code: 'FORBIDDEN', message: ORGANIZATION_SUSPENDED_MESSAGE });
    expect(send.body.message).toMatch(/^[A-Z].*\.$/);
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
    // another organization's keys are not touched
    expect((await bystander.api.get('/v1/api-keys')).status).toBe(200);

    await setOrganizationSuspended(t.deps, orgId, false);
    await waitFor(async () => (await status()) === 200, 500, 'the resumed key to be accepted');
  });
});
