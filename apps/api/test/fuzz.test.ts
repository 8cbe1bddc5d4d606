import fc from 'fast-check';
import { setupApi } from './setup.ts';

// Every operation of the served OpenAPI document, hit with wrong bodies, queries, ids and headers: the answer is
// never a 500, always exactly {code, message}, and a refused request writes nothing.
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000' });
afterAll(() => t.close());

type Operation = { method: string; path: string; operationId: string; hasBody: boolean; queryNames: string[] };

async function operations(): Promise<Operation[]> {
  const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      hasBody: Boolean(op.requestBody),
      queryNames: (op.parameters ?? []).filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name),
    })),
  );
}

const nasty = fc.oneof(
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\u202e', '🙂'.repeat(500), 'x'.repeat(70_000), '%00', "'; DROP TABLE \"ApiKey\"; --", '{{x}}', '../../etc/passwd'),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const badBody = fc.oneof(
  fc.anything({ maxDepth: 4 }),
  fc.dictionary(fc.string({ maxLength: 20 }), nasty, { maxKeys: 6 }),
  // deep nesting travels as JSON text, so the property runner never has to walk it
  fc.constant('['.repeat(5_000) + ']'.repeat(5_000)),
  fc.nat({ max: 3000 }).map((depth) => {
    const condition = JSON.stringify({ field: 'email', op: 'eq', value: 'x' });
    const deep = '{"all":['.repeat(depth) + condition + ']}'.repeat(depth);
    return `{"name":"deep","criteria":${deep},"url":"https://example.com","events":[${deep}]}`;
  }),
);

function concretePath(path: string, id: string): string {
  return path.replace(/\{[^}]+\}/g, encodeURIComponent(id));
}

/** Rows of every table that has an orgId column, for this organization: "nothing written" is checked on them. */
async function orgRowCounts(orgId: string): Promise<Record<string, number>> {
  const tables = await t.deps.db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.columns WHERE column_name = 'orgId' AND table_schema = 'public'`;
  // table names come from the catalog, never from a caller
  const counts = await Promise.all(
    tables.map(async ({ table_name }) => {
      const [row] = await t.deps.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "orgId" = $1`, orgId);
      return [table_name, row!.n] as const;
    }),
  );
  return Object.fromEntries(counts.filter(([table]) => table !== 'IdempotencyRecord'));
}

function expectErrorShape(status: number, body: unknown, context: string) {
  if (status >= 500) throw new Error(`${context}: answered ${status} ${JSON.stringify(body)}`);
  if (status >= 400) {
    expect(Object.keys(body as object).sort()).toEqual(['code', 'message']);
    expect(typeof (body as { message: unknown }).message).toBe('string');
  }
}

describe('fuzzing bad input', () => {
  it('bodies of wrong types, huge strings, deep nesting and unicode edge cases: never a 500, nothing written', async () => {
    const { api, orgId } = await t.org();
    for (const op of (await operations()).filter((o) => o.hasBody)) {
      await fc.assert(
        fc.asyncProperty(badBody, fc.constantFrom('con_x', 'nope', 'x'.repeat(300)), async (body, id) => {
          const before = await orgRowCounts(orgId);
          const res = await api.call(op.method, concretePath(`/v1${op.path}`, id), body);
          expectErrorShape(res.status, res.body, `${op.operationId} ${String(JSON.stringify(body)).slice(0, 200)}`);
          if (res.status >= 400) expect(await orgRowCounts(orgId)).toEqual(before);
        }),
        { numRuns: 15 },
      );
    }
    // one property per operation with a body: the time grows with the API
  }, 120_000);

  it('invalid JSON and wrong content types are 400/415 for every operation with a body, and change nothing', async () => {
    const { api, orgId } = await t.org();
    const before = await orgRowCounts(orgId);
    for (const op of (await operations()).filter((o) => o.hasBody)) {
      const path = concretePath(`/v1${op.path}`, 'id_x');
      for (const [text, contentType] of [
        ['{"a":', 'application/json'],
        ['{"a": 1}', 'text/plain'],
        ['a=1', 'application/x-www-form-urlencoded'],
        ['\u0000\u0001', 'application/octet-stream'],
      ]) {
        const res = await api.call(op.method, path, text, { 'content-type': contentType });
        expectErrorShape(res.status, res.body, `${op.operationId} ${contentType}`);
        expect([400, 404, 413, 415]).toContain(res.status);
      }
    }
    expect(await orgRowCounts(orgId)).toEqual(before);
  });

  it('queries with wrong types and path ids of every shape never give a 500', async () => {
    const { api } = await t.org();
    for (const op of await operations()) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.constantFrom(...op.queryNames, 'limit', 'cursor', 'offset', 'unknown'), fc.string({ maxLength: 50 })), fc.string({ maxLength: 80 }), async (query, id) => {
          const qs = new URLSearchParams(query).toString();
          const res = await api.call(op.method === 'GET' ? 'GET' : op.method, `${concretePath(`/v1${op.path}`, id || 'x')}${qs ? `?${qs}` : ''}`);
          expectErrorShape(res.status, res.body, `${op.operationId} ?${qs}`);
        }),
        { numRuns: 10 },
      );
    }
  });

  it('bad headers: Authorization and Idempotency-Key of every shape are 4xx with the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (value) => {
        const res = await t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${value.replace(/[\r\n]/g, '')}` });
        expectErrorShape(res.status, res.body, `authorization ${value}`);
        expect(res.status).toBe(401);
      }),
      { numRuns: 50 },
    );
  });
});
