import { RESEND_COMPATIBLE_TAG } from '@tidings/contracts';
import fc from 'fast-check';
import { mutate, mutateQuery, prefixOf, queryString, sampleBody, sampleQuery, seededRandom, sweepMutations, sweepQueries, type OpenApiDocument } from './openapi-mutations.ts';
import { setupApi } from './setup.ts';

// Every operation of the served OpenAPI document, hit with wrong bodies, queries, ids and headers: the answer is
// never a 500, always exactly {code, message}, and a refused request writes nothing.
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_LOOPBACK: 'true' });
afterAll(() => t.close());

type Operation = { method: string; path: string; operationId: string; hasBody: boolean; queryNames: string[]; isResendCompatible: boolean };

async function operations(): Promise<Operation[]> {
  const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: `${prefixOf(op)}${path}`,
      operationId: op.operationId,
      isResendCompatible: op.tags.includes(RESEND_COMPATIBLE_TAG),
      hasBody: Boolean(op.requestBody),
      queryNames: (op.parameters ?? []).filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name),
    })),
  );
}

const nasty = fc.oneof(
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\u202e', '🙂'.repeat(500), 'x'.repeat(70_000), '%00', '\'; DROP TABLE "ApiKey"; --', '{{x}}', '../../etc/passwd'),
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

let orgTables: string[] | undefined;

/** Rows of every table that has an orgId column, for this organization: "nothing written" is checked on them. */
async function orgRowCounts(orgId: string): Promise<Record<string, number>> {
  orgTables ??= (
    await t.deps.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.columns WHERE column_name = 'orgId' AND table_schema = 'public' AND table_name <> 'IdempotencyRecord'`
  ).map((row) => row.table_name);
  // one statement for every table (checked before and after each request, this is most of what the properties run);
  // table names come from the catalog, never from a caller
  const counts = orgTables.map((table, i) => `SELECT ${i} AS i, count(*)::int AS n FROM "${table}" WHERE "orgId" = $1`).join(' UNION ALL ');
  const rows = await t.deps.db.$queryRawUnsafe<{ i: number; n: number }[]>(counts, orgId);
  return Object.fromEntries(rows.map(({ i, n }) => [orgTables![i]!, n]));
}

/** The keys of an error answer: `{ code, message }`, or Resend's `{ statusCode, name, message }` on its doors. */
const errorKeysOf = (isResendCompatible: boolean) => (isResendCompatible ? 'message,name,statusCode' : 'code,message');

function expectErrorShape(status: number, body: unknown, context: string, isResendCompatible = false) {
  if (status >= 500) throw new Error(`${context}: answered ${status} ${JSON.stringify(body)}`);
  if (status >= 400) {
    expect(
      Object.keys(body as object)
        .sort()
        .join(),
    ).toEqual(errorKeysOf(isResendCompatible));
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
          const res = await api.call(op.method, concretePath(op.path, id), body);
          expectErrorShape(res.status, res.body, `${op.operationId} ${String(JSON.stringify(body)).slice(0, 200)}`, op.isResendCompatible);
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
      const path = concretePath(op.path, 'id_x');
      for (const [text, contentType] of [
        ['{"a":', 'application/json'],
        ['{"a": 1}', 'text/plain'],
        ['a=1', 'application/x-www-form-urlencoded'],
        ['\u0000\u0001', 'application/octet-stream'],
      ]) {
        const res = await api.call(op.method, path, text, { 'content-type': contentType });
        expectErrorShape(res.status, res.body, `${op.operationId} ${contentType}`, op.isResendCompatible);
        expect([400, 404, 413, 415]).toContain(res.status);
      }
    }
    expect(await orgRowCounts(orgId)).toEqual(before);
  });

  it('queries with wrong types and path ids of every shape never give a 500', async () => {
    const { api } = await t.org();
    for (const op of await operations()) {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...op.queryNames, 'limit', 'cursor', 'offset', 'unknown'), fc.string({ maxLength: 50 })),
          fc.string({ maxLength: 80 }),
          async (query, id) => {
            const qs = new URLSearchParams(query).toString();
            const res = await api.call(op.method === 'GET' ? 'GET' : op.method, `${concretePath(op.path, id || 'x')}${qs ? `?${qs}` : ''}`);
            expectErrorShape(res.status, res.body, `${op.operationId} ?${qs}`, op.isResendCompatible);
          },
        ),
        { numRuns: 10 },
      );
    }
  }, 120_000);

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

// Valid requests generated from the served OpenAPI document (openapi-sampler, from each schema's examples and types),
// then mutated: NUL, lone surrogates, out-of-range dates, huge numbers, wrong types, extra fields, forged cursors.
// Ids in paths are real resources of the caller's organization half of the time, so the mutations reach past the
// lookups. Seeded: FUZZ_SEED=<n> replays a run.
describe('OpenAPI-driven fuzzing', () => {
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  // besides the sweep (every value of a valid request poisoned in turn), this many random mutations per operation
  const RANDOM_BODIES_PER_OPERATION = 15;
  const RANDOM_QUERIES_PER_OPERATION = 6;
  // loopback only: a sampled webhook URL (example.com) would otherwise be resolved through the network
  const LOOPBACK_URL = 'http://127.0.0.1:9/hook';

  /** Ids of real resources of the organization, by the path they live under (none for those that reach a provider or DNS). */
  async function realIds(api: Awaited<ReturnType<typeof t.org>>['api']): Promise<Record<string, string>> {
    const contact = await api.post('/v1/contacts', { email: 'fuzz@example.com' });
    const template = await api.post('/v1/templates', { name: 'fuzz', channelType: 'sms', body: 'Hi {{ name }}' });
    const segment = await api.post('/v1/segments', { name: 'fuzz', criteria: { all: [{ field: 'email', op: 'exists' }] } });
    const topic = await api.post('/v1/topics', { name: 'fuzz', defaultSubscription: 'opt_in' });
    const webhook = await api.post('/v1/webhooks', { url: LOOPBACK_URL, events: ['message.sent'] });
    const key = await api.post('/v1/api-keys', { name: 'fuzz target', permission: 'full' });
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const message = await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'hi', scheduledAt });
    const email = await api.post('/v1/messages', { channelType: 'email', to: 'fuzz@example.com', subject: 'hi', text: 'hi', scheduledAt });
    for (const res of [contact, template, segment, topic, webhook, key, message, email]) expect(res.status).toBeLessThan(300);
    return {
      '/contacts/': contact.body.id,
      '/templates/': template.body.id,
      '/segments/': segment.body.id,
      '/topics/': topic.body.id,
      '/webhooks/': webhook.body.id,
      '/api-keys/': key.body.id,
      '/messages/': message.body.id,
      '/emails/': email.body.id,
    };
  }

  it(`sends mutated bodies and queries to every operation; no answer is a 5xx (seed ${seed})`, async () => {
    const random = seededRandom(seed);
    const document = (await (await t.app.request('/v1/openapi.json')).json()) as OpenApiDocument;
    const { api } = await t.org({ mode: 'test' });
    const ids = await realIds(api);
    const failures: string[] = [];
    let requests = 0;

    const pathFor = (path: string, operation: { servers?: { url: string }[] }) =>
      `${prefixOf(operation)}${path.replace(/\{[^}]+\}/g, () => {
        const real = Object.entries(ids).find(([prefix]) => path.startsWith(prefix))?.[1];
        return encodeURIComponent(real && random.next() < 0.5 ? real : random.pick(['con_nope', 'x', 'a\u0000b', 'x'.repeat(65), '%00']));
      })}`;
    const check = (status: number, body: unknown, what: string, isResendCompatible: boolean) => {
      requests += 1;
      const shapeOk = status < 400 || (body !== null && typeof body === 'object' && Object.keys(body).sort().join() === errorKeysOf(isResendCompatible));
      if (status >= 500 || !shapeOk) failures.push(`${status} ${what} -> ${String(JSON.stringify(body)).slice(0, 300)}`);
    };

    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const isResendCompatible = (operation.tags ?? []).includes(RESEND_COMPATIBLE_TAG);
        const valid = sampleBody(document, operation);
        if (valid !== null) {
          const withLoopback = JSON.parse(JSON.stringify(valid).replace(/"url":"[^"]*"/g, `"url":"${LOOPBACK_URL}"`));
          const bodies = [...sweepMutations(withLoopback), ...Array.from({ length: RANDOM_BODIES_PER_OPERATION }, () => mutate(withLoopback, random))];
          for (const body of bodies) {
            const target = pathFor(path, operation);
            const res = await api.call(method.toUpperCase(), target, JSON.stringify(body));
            check(res.status, res.body, `${operation.operationId} ${method.toUpperCase()} ${target} ${String(JSON.stringify(body)).slice(0, 300)}`, isResendCompatible);
          }
        }
        const validQuery = sampleQuery(document, operation);
        const queries = [...sweepQueries(validQuery), ...Array.from({ length: RANDOM_QUERIES_PER_OPERATION }, () => mutateQuery(validQuery, random))];
        for (const query of queries) {
          const target = `${pathFor(path, operation)}${queryString(query)}`;
          const res = await api.call(method.toUpperCase(), target, valid === null ? undefined : JSON.stringify(valid));
          check(res.status, res.body, `${operation.operationId} ${method.toUpperCase()} ${target.slice(0, 300)}`, isResendCompatible);
        }
      }
    }
    if (failures.length > 0) throw new Error(`FUZZ_SEED=${seed}: ${failures.length} of ${requests} requests failed:\n${failures.slice(0, 20).join('\n')}`);
    expect(requests).toBeGreaterThan(1_500);
    expect(requests).toBeLessThan(5_000);
  }, 180_000);
});
