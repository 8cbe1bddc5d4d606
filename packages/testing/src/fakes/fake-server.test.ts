import { Hono } from 'hono';
import { startFakeServer } from './fake-server.ts';

describe('fake server', () => {
  it('records requests and injects the faults it is told to', async () => {
    const fake = await startFakeServer(new Hono().post('/things', (c) => c.json({ ok: true }, 201)));
    const post = () => fetch(`${fake.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    fake.failNext(1, { kind: 'status', status: 500 });
    expect((await post()).status).toBe(500);
    expect((await post()).status).toBe(201);
    expect(fake.requests.map((r) => r.body)).toEqual([{ a: 1 }, { a: 1 }]);

    fake.failNext(1, { kind: 'hang' });
    await expect(fetch(`${fake.url}/things`, { method: 'POST', signal: AbortSignal.timeout(200) })).rejects.toThrow();
    await fake.close();
  });
});
