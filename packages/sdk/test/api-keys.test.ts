import { insertApiKey } from '@tidings/core';
import { Tidings } from '../src/index.ts';
import { recordingFetch, startApi, caught } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.apiKeys against the running API', () => {
  it('creates, lists, rotates, disables, enables and deletes a key', async () => {
    const { tidings } = await api.org();
    const created = await tidings.apiKeys.create({ name: 'CI', permission: 'sending' });
    expect(created).toMatchObject({ name: 'CI', permission: 'sending', mode: 'live', state: 'enabled' });
    expect(created.key).toMatch(/^sk_live_/);

    const page = await tidings.apiKeys.list({ limit: 10 }).page();
    expect(page.data.map((k) => k.id)).toContain(created.id);
    expect(page).toMatchObject({ hasMore: false, nextCursor: null });
    expect(JSON.stringify(page)).not.toContain(created.key);

    const rotated = await tidings.apiKeys.rotate(created.id, { immediately: true });
    expect(rotated.key).not.toBe(created.key);
    expect(rotated.previousKeyExpiresAt).toBeNull();

    const disabled = await tidings.apiKeys.disable(created.id);
    expect(disabled.state).toBe('disabled');
    const enabled = await tidings.apiKeys.enable(created.id);
    expect(enabled.state).toBe('enabled');

    await expect(tidings.apiKeys.delete(created.id)).resolves.toBeUndefined();
    const after = await tidings.apiKeys.list().toArray();
    expect(after.map((k) => k.id)).not.toContain(created.id);
    expect(await api.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({ deletedAt: expect.any(Date) });
  });

  it('a rotated key keeps the old secret working for the overlap, and the SDK with the new one works', async () => {
    const { tidings } = await api.org();
    const created = await tidings.apiKeys.create({ name: 'rotating' });
    const rotated = await tidings.apiKeys.rotate(created.id);
    expect(rotated.previousKeyExpiresAt).not.toBeNull();
    const withOld = new Tidings({ apiKey: created.key, baseUrl: api.baseUrl, fetch: api.validating() });
    const withNew = new Tidings({ apiKey: rotated.key, baseUrl: api.baseUrl, fetch: api.validating() });
    expect((await withOld.apiKeys.list().page()).data.length).toBeGreaterThan(0);
    expect((await withNew.apiKeys.list().page()).data.length).toBeGreaterThan(0);
  });

  it('401 becomes a TidingsError with code, message, status and requestId', async () => {
    const tidings = new Tidings({ apiKey: 'sk_live_not_a_real_key_0000000000000000', baseUrl: api.baseUrl, fetch: api.validating() });
    const error = await caught(tidings.apiKeys.list().page());
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, name: 'TidingsError' });
    expect(error.message).toMatch(/key/i);
    expect(error.requestId).toMatch(/.+/);
  });

  it('a disabled key gets 401 through the SDK', async () => {
    const { tidings } = await api.org();
    const created = await tidings.apiKeys.create({ name: 'to disable' });
    await tidings.apiKeys.disable(created.id);
    // the API caches key lookups briefly; a client that never used the key sees the refusal at once
    const error = await caught(new Tidings({ apiKey: created.key, baseUrl: api.baseUrl, fetch: api.validating() }).apiKeys.list().page());
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('404 for an unknown id and for another organization’s key, which stays untouched', async () => {
    const owner = await api.org();
    const stranger = await api.org();
    const target = await owner.tidings.apiKeys.create({ name: 'mine' });
    const unknown = await caught(stranger.tidings.apiKeys.disable('key_00000000000000000000000000'));
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'API key not found' });
    const foreign = await caught(stranger.tidings.apiKeys.delete(target.id));
    expect(foreign).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const row = await api.deps.db.apiKey.findUniqueOrThrow({ where: { id: target.id } });
    expect(row.deletedAt).toBeNull();
  });

  it('400 names the field, and echoes the caller’s X-Request-Id as requestId', async () => {
    const { tidings, orgId } = await api.org();
    const error = await caught(tidings.apiKeys.create({ name: '' }, { headers: { 'x-request-id': 'req-sdk-test-1' } }));
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400, requestId: 'req-sdk-test-1' });
    expect(error.message).toMatch(/^name/);
    expect(await api.deps.db.apiKey.count({ where: { orgId } })).toBe(1);
  });

  it('403 for a sending key on apiKey operations', async () => {
    const { tidings } = await api.org();
    const sending = await tidings.apiKeys.create({ name: 'sender', permission: 'sending' });
    const error = await caught(new Tidings({ apiKey: sending.key, baseUrl: api.baseUrl, fetch: api.validating() }).apiKeys.list().page());
    expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('an already aborted AbortSignal stops the call before it is sent', async () => {
    const wire = { attempts: 0 };
    const { tidings } = await api.org({
      fetch: (input, init) => {
        wire.attempts += 1;
        return fetch(input, init);
      },
    });
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await expect(tidings.apiKeys.list({}, { signal: controller.signal }).page()).rejects.toThrow('caller gave up');
    expect(wire.attempts).toBe(0);
  });

  it('walks 250 keys page by page by cursor, each exactly once, newest first', async () => {
    const { key, orgId } = await api.org();
    // 249 more keys beside the organization's own, in batches so the pool is not exhausted
    for (let i = 0; i < 249; i += 50) {
      const batch = Array.from({ length: Math.min(50, 249 - i) }, (_, j) => insertApiKey(api.deps.db, orgId, { name: `k${i + j}`, permission: 'full', mode: 'live' }));
      await Promise.all(batch);
    }
    const wire = recordingFetch();
    const counting = new Tidings({ apiKey: key, baseUrl: api.baseUrl, fetch: api.validating(wire.fetch) });

    const seen: string[] = [];
    for await (const key of counting.apiKeys.list({ limit: 50 })) seen.push(key.id);
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(wire.exchanges).toHaveLength(5);
    expect(new URL(wire.exchanges[0].url).searchParams.get('cursor')).toBeNull();
    expect(new URL(wire.exchanges[1].url).searchParams.get('cursor')).toMatch(/.+/);

    const rows = await api.deps.db.apiKey.findMany({ where: { orgId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    expect(seen).toEqual(rows.map((r) => r.id));

    const first = await counting.apiKeys.list({ limit: 100 }).page();
    expect(first.data).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    let pages = 0;
    for await (const page of counting.apiKeys.list({ limit: 100 }).pages()) {
      pages += 1;
      expect(page.data.length).toBeGreaterThan(0);
    }
    expect(pages).toBe(3);
  });

  it('iteration started with an offset continues by cursor and still visits each remaining key once', async () => {
    const { tidings, orgId } = await api.org();
    await Promise.all(Array.from({ length: 11 }, (_, i) => insertApiKey(api.deps.db, orgId, { name: `o${i}`, permission: 'full', mode: 'live' })));
    const all = await tidings.apiKeys.list({ limit: 100 }).toArray();
    expect(all).toHaveLength(12);
    const fromThird = await tidings.apiKeys.list({ limit: 4, offset: 2 }).toArray();
    expect(fromThird.map((k) => k.id)).toEqual(all.slice(2).map((k) => k.id));
  });
});
