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
    await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(row.lastUsedAt).not.toBeNull();
  });

  it('a test key creates test keys and may not create live keys', async () => {
    const { api } = await t.org({ mode: 'test' });
    const created = await api.post('/v1/api-keys', { name: 'sandbox' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_test_/);
    const live = await api.post('/v1/api-keys', { name: 'live', mode: 'live' });
    expect(live.status).toBe(403);
    expect(live.body.code).toBe('FORBIDDEN');
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

  it('disable gives 401 within the cache time on another replica; enable brings it back', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/api-keys', { name: 'to disable' });
    const other = setupApi();
    let clock = Date.now();
    other.deps.now = () => new Date(clock);
    const viaOther = () => other.anonymous.get('/v1/api-keys', { authorization: `Bearer ${created.body.key}` });
    expect((await viaOther()).status).toBe(200); // now cached on the other replica

    const disabled = await api.post(`/v1/api-keys/${created.body.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.state).toBe('disabled');
    clock += 5000;
    const refused = await viaOther();
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');

    const enabled = await api.post(`/v1/api-keys/${created.body.id}/enable`);
    expect(enabled.body.state).toBe('enabled');
    clock += 5000;
    expect((await viaOther()).status).toBe(200);
    await other.close();
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

  it('a suspended organization gets 403', async () => {
    const { key, orgId } = await t.org();
    await t.deps.db.organization.update({ where: { id: orgId }, data: { suspendedAt: new Date() } });
    const res = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'FORBIDDEN', message: 'This organization is suspended' });
  });
});
