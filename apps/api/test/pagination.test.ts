import { setupApi } from './setup.ts';

const t = setupApi({ RATE_LIMIT_PER_MINUTE: '10000' });
afterAll(() => t.close());

describe('pagination', () => {
  it('following nextCursor visits every item exactly once while items are inserted between pages', async () => {
    const { api } = await t.org();
    for (let i = 0; i < 11; i += 1) await api.post('/v1/api-keys', { name: `key ${i}` });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { data: { id: string }[]; hasMore: boolean; nextCursor: string | null } } = await api.get(
        `/v1/api-keys?limit=5${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((k) => k.id));
      cursor = res.body.nextCursor;
      expect(res.body.hasMore).toBe(cursor !== null);
      pages += 1;
      // new keys arrive while the caller pages: they are newer than the cursor, so they never show up twice
      await api.post('/v1/api-keys', { name: `arrived during page ${pages}` });
    } while (cursor);

    expect(pages).toBe(3);
    expect(seen).toHaveLength(12); // 11 created + the organization's first key
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('lists newest first, with limit and offset', async () => {
    const { api } = await t.org();
    for (let i = 0; i < 4; i += 1) await api.post('/v1/api-keys', { name: `n${i}` });
    const all = await api.get('/v1/api-keys');
    expect(all.body.data.map((k: { name: string }) => k.name)).toEqual(['n3', 'n2', 'n1', 'n0', 'Default key']);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.nextCursor).toBeNull();
    const page = await api.get('/v1/api-keys?limit=2&offset=1');
    expect(page.body.data.map((k: { name: string }) => k.name)).toEqual(['n2', 'n1']);
    expect(page.body.hasMore).toBe(true);
  });
});
