import { Prisma } from '@tidings/db';
import pg from 'pg';
import { setupApi } from './setup.ts';

const TIMEOUT_MS = 300;
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) });
afterAll(() => t.close());

describe('every statement of a request-serving process has a time limit', () => {
  it('Postgres cancels a statement past DATABASE_STATEMENT_TIMEOUT_MS, on every connection of the pool', async () => {
    // pool size 5: more statements than connections, so each connection is shown to carry the limit
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => t.deps.db.$queryRaw(Prisma.sql`SELECT pg_sleep(5)`)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('rejected'));
    const started = performance.now();
    await expect(t.deps.db.$queryRaw(Prisma.sql`SELECT pg_sleep(5)`)).rejects.toThrow(/statement timeout/);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('a request whose statement runs past it is a 503 {code, message} with Retry-After, not a 500', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const template = (await api.post('/v1/templates', { name: 'locked', channelType: 'sms', body: 'Hi' })).body;
    // Another connection holds the template's row: template.update waits on it (SELECT ... FOR UPDATE) until cancelled.
    const holder = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM "Template" WHERE "id" = $1 FOR UPDATE', [template.id]);
      const started = performance.now();
      const res = await api.patch(`/v1/templates/${template.id}`, { body: 'Hello' });
      expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 503,
        body: { code: 'SERVICE_UNAVAILABLE', message: `The database did not answer within the ${TIMEOUT_MS} ms one statement may take; narrow the request or retry later.` },
        retryAfter: '5',
      });
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // nothing was written, and the pool serves the next request
    const after = await api.get(`/v1/templates/${template.id}`);
    expect({ status: after.status, version: after.body.version, body: after.body.body }).toEqual({ status: 200, version: 1, body: 'Hi' });
    expect(await t.deps.db.templateVersion.count({ where: { template: { orgId } } })).toBe(1);
  });
});
