import { recountSegment } from '@tidings/core';
import { setupApi } from './setup.ts';

// The known-answer tests make about 70 requests with one key; the rate limit is not what they test. Every stored
// count is stale at once (SEGMENT_COUNT_MAX_AGE_MS 0): each read may ask for a recount; no worker runs here.
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000', SEGMENT_COUNT_MAX_AGE_MS: '0' });
afterAll(() => t.close());

type Api = Awaited<ReturnType<typeof t.org>>['api'];

/** One organization with four known contacts, created in this order (so lists are dee, cyd, bob, ada). */
async function people() {
  const org = await t.org();
  const res = await org.api.post('/v1/contacts/bulk', {
    contacts: [
      { email: 'ada@example.com', firstName: 'Ada', attributes: { plan: 'pro', seats: 10, signupAt: '2024-03-01T00:00:00Z', vip: true } },
      { email: 'bob@test.org', phone: '+14155550111', firstName: 'Bob', emailSubscribed: false, attributes: { plan: 'free', seats: '10', signupAt: '2023-12-31' } },
      { phone: '+14155550112', firstName: 'Cyd', attributes: { plan: 'team', seats: 3, signupAt: 'not a date' } },
      { email: 'dee@example.com', lastName: "O'Brien" },
    ],
  });
  expect(res.body.errors).toEqual([]);
  const [ada, bob, cyd, dee] = res.body.created.map((c: { id: string }) => c.id) as string[];
  return { ...org, byId: { [ada!]: 'ada', [bob!]: 'bob', [cyd!]: 'cyd', [dee!]: 'dee' } as Record<string, string> };
}

/** The names of the contacts matching `criteria`, through segment.create then segment.listContacts, checked against contactCount. */
async function matching(api: Api, byId: Record<string, string>, criteria: object): Promise<string[]> {
  const created = await api.post('/v1/segments', { name: 'probe', criteria });
  expect(created.status).toBe(201);
  const listed = await api.get(`/v1/segments/${created.body.id}/contacts?limit=100`);
  expect(listed.status).toBe(200);
  const names = listed.body.data.map((c: { id: string }) => byId[c.id]).sort();
  expect(created.body.contactCount).toBe(names.length);
  return names;
}

describe('segment criteria, evaluated in SQL (known answers)', () => {
  let org: Awaited<ReturnType<typeof people>>;
  beforeAll(async () => {
    org = await people();
  });
  const match = (criteria: object) => matching(org.api, org.byId, criteria);
  const one = (field: string, op: string, value?: unknown) => match({ all: [{ field, op, ...(value === undefined ? {} : { value }) }] });

  it('attribute numbers and strings are different values', async () => {
    expect(await one('attributes.seats', 'eq', 10)).toEqual(['ada']);
    expect(await one('attributes.seats', 'eq', '10')).toEqual(['bob']);
    expect(await one('attributes.seats', 'gte', 5)).toEqual(['ada']); // bob's "10" is a string: no numeric comparison
    expect(await one('attributes.seats', 'lt', 5)).toEqual(['cyd']);
    expect(await one('attributes.seats', 'neq', 10)).toEqual(['bob', 'cyd', 'dee']);
    expect(await one('attributes.vip', 'eq', true)).toEqual(['ada']);
  });

  it('attribute dates compare as dates; strings that are not dates never match', async () => {
    expect(await one('attributes.signupAt', 'gt', '2024-01-01')).toEqual(['ada']);
    expect(await one('attributes.signupAt', 'lt', '2024-01-01T00:00:00Z')).toEqual(['bob']);
    expect(await one('attributes.signupAt', 'lte', '2030-01-01T00:00:00+02:00')).toEqual(['ada', 'bob']);
  });

  it('exists and notExists, on columns and attributes', async () => {
    expect(await one('attributes.plan', 'exists')).toEqual(['ada', 'bob', 'cyd']);
    expect(await one('attributes.plan', 'notExists')).toEqual(['dee']);
    expect(await one('email', 'exists')).toEqual(['ada', 'bob', 'dee']);
    expect(await one('phone', 'notExists')).toEqual(['ada', 'dee']);
    expect(await one('lastName', 'exists')).toEqual(['dee']);
  });

  it('string operators on contact fields ignore case; neq includes contacts without the field', async () => {
    expect(await one('firstName', 'eq', 'ADA')).toEqual(['ada']);
    expect(await one('firstName', 'neq', 'ada')).toEqual(['bob', 'cyd', 'dee']);
    expect(await one('email', 'contains', 'EXAMPLE')).toEqual(['ada', 'dee']);
    expect(await one('email', 'startsWith', 'b')).toEqual(['bob']);
    expect(await one('email', 'in', ['ADA@example.com', 'nobody@example.com'])).toEqual(['ada']);
    expect(await one('phone', 'eq', '+1 (415) 555-0112')).toEqual(['cyd']);
    expect(await one('attributes.plan', 'in', ['pro', 'team'])).toEqual(['ada', 'cyd']);
    expect(await one('attributes.plan', 'startsWith', 'F')).toEqual(['bob']);
    expect(await one('email', 'contains', '%')).toEqual([]); // LIKE wildcards in a value are literal
    expect(await one('emailSubscribed', 'eq', false)).toEqual(['bob']);
    expect(await one('createdAt', 'gt', '2000-01-01T00:00:00Z')).toEqual(['ada', 'bob', 'cyd', 'dee']);
    expect(await one('createdAt', 'lt', '2000-01-01')).toEqual([]);
  });

  it('nested any/all', async () => {
    const criteria = {
      any: [
        {
          all: [
            { field: 'attributes.plan', op: 'eq', value: 'pro' },
            { field: 'emailSubscribed', op: 'eq', value: true },
          ],
        },
        {
          all: [
            { field: 'phone', op: 'startsWith', value: '+1415' },
            {
              any: [
                { field: 'firstName', op: 'eq', value: 'cyd' },
                { field: 'attributes.plan', op: 'eq', value: 'gold' },
              ],
            },
          ],
        },
      ],
    };
    expect(await match(criteria)).toEqual(['ada', 'cyd']);
    expect(
      await match({
        all: [
          {
            any: [
              { field: 'email', op: 'notExists' },
              { field: 'emailSubscribed', op: 'eq', value: false },
            ],
          },
          { field: 'phone', op: 'exists' },
        ],
      }),
    ).toEqual(['bob', 'cyd']);
    const deep = { all: [{ any: [{ all: [{ any: [{ all: [{ field: 'firstName', op: 'eq', value: 'Bob' }] }] }] }] }] }; // depth 5
    expect(await match(deep)).toEqual(['bob']);
  });

  it('a value written to break out of SQL is just a value', async () => {
    const before = await t.deps.db.contact.count();
    expect(await one('firstName', 'eq', "x' OR '1'='1")).toEqual([]);
    expect(await one('lastName', 'eq', `'; DROP TABLE "Contact"; --`)).toEqual([]);
    expect(await one('attributes.plan', 'eq', `pro' OR 1=1 --`)).toEqual([]);
    expect(await one('lastName', 'eq', "o'brien")).toEqual(['dee']); // the quote arrives intact
    expect(await t.deps.db.contact.count()).toBe(before);
    const key = await org.api.post('/v1/segments', { name: 'x', criteria: { all: [{ field: `attributes.x') OR 1=1 --`, op: 'exists' }] } });
    expect(key.status).toBe(400);
    expect(key.body.message).toMatch(/^criteria\.all\.0\.field: unknown field/);
  });
});

describe('bad criteria are 400 naming the path of the bad condition, and nothing is stored', () => {
  const cases: [string, object, string][] = [
    [
      'a string where gt needs a number or date',
      { all: [{ field: 'email', op: 'exists' }, { any: [{ field: 'attributes.seats', op: 'gt', value: 'ten' }] }] },
      'criteria.all.1.any.0.value: gt on attributes.seats needs a number or an ISO-8601 date or date-time',
    ],
    ['an unknown field', { any: [{ field: 'nickname', op: 'eq', value: 'x' }] }, 'criteria.any.0.field: unknown field'],
    ['an unknown operator', { all: [{ field: 'email', op: 'like', value: 'x' }] }, 'criteria.all.0.op:'],
    ['an operator the field does not take', { all: [{ field: 'emailSubscribed', op: 'contains', value: 'x' }] }, 'criteria.all.0.op: contains does not apply to emailSubscribed'],
    ['a value of the wrong type', { all: [{ field: 'smsSubscribed', op: 'eq', value: 'yes' }] }, 'criteria.all.0.value: eq on smsSubscribed needs true or false'],
    ['a value with exists', { all: [{ field: 'email', op: 'exists', value: 'x' }] }, 'criteria.all.0.value: exists on email needs no value'],
    ['an empty in list', { all: [{ field: 'attributes.plan', op: 'in', value: [] }] }, 'criteria.all.0.value: in on attributes.plan needs a list'],
    ['a date that is not one', { all: [{ field: 'createdAt', op: 'gt', value: '2024-02-30' }] }, 'criteria.all.0.value: gt on createdAt needs an ISO-8601 date'],
    ['an unknown key in a condition', { all: [{ field: 'email', op: 'exists', extra: 1 }] }, 'criteria.all.0: extra: unknown field'],
    ['a group that is neither all nor any', { every: [] }, 'criteria: must be { "all": [...] } or { "any": [...] }'],
    ['an empty group', { all: [{ any: [] }] }, 'criteria.all.0.any: must be a list of 1 to 100'],
    // found by the OpenAPI fuzz test: a null item was a 500 (read before it was checked)
    ['a null in a group', { all: [{ field: 'email', op: 'exists' }, null] }, 'criteria.all.1: '],
    [
      'nesting deeper than 5',
      { all: [{ any: [{ all: [{ any: [{ all: [{ any: [{ field: 'email', op: 'exists' }] }] }] }] }] }] },
      'criteria.all.0.any.0.all.0.any.0.all.0: groups nest at most 5 deep',
    ],
    [
      // the attack: 2 x 100 contains of ~950 characters took segment.create 116 s over 12,000 contacts
      'contains values past 2,000 characters in all',
      {
        any: [
          { any: Array.from({ length: 100 }, (_, i) => ({ field: 'email', op: 'contains', value: `${i}${'x'.repeat(949)}` })) },
          { any: Array.from({ length: 100 }, (_, i) => ({ field: 'attributes.bio', op: 'contains', value: `${i}${'y'.repeat(949)}` })) },
        ],
      },
      'criteria.any.0.any.2.value: contains and startsWith values may total at most 2000 characters in one segment',
    ],
  ];
  it.each(cases)('%s', async (_, criteria, message) => {
    const { api, orgId } = await t.org();
    const res = await api.post('/v1/segments', { name: 'bad', criteria });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message.startsWith(message)).toBe(true);
    expect(await t.deps.db.segment.count({ where: { orgId } })).toBe(0);
  });
});

describe('every field and operator pair', () => {
  it('either evaluates (201 with a count) or is a 400 naming the condition; never a 500', async () => {
    const { api } = await people();
    const fields = ['email', 'phone', 'firstName', 'lastName', 'emailSubscribed', 'smsSubscribed', 'createdAt', 'attributes.seats'];
    const ops = ['eq', 'neq', 'contains', 'startsWith', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists', 'in'];
    const values = [undefined, 'x', 10, true, '2024-01-01', ['x'], ['2024-01-01', '2025-01-01'], [10, 'x'], null];
    let evaluated = 0;
    for (const field of fields) {
      for (const op of ops) {
        for (const value of values) {
          const condition = { field, op, ...(value === undefined ? {} : { value }) };
          const res = await api.post('/v1/segments', { name: 'pair', criteria: { all: [condition] } });
          if (res.status === 201) evaluated += 1;
          else expect({ condition, status: res.status, path: res.body.message.startsWith('criteria.all.0') }).toEqual({ condition, status: 400, path: true });
        }
      }
    }
    expect(evaluated).toBeGreaterThan(40);
  });
});

describe('segment operations', () => {
  it('create, get with contactCount, list, update (results follow), delete', async () => {
    const { api, byId } = await people();
    const created = await api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Pros', contactCount: 1 });
    expect(created.body.id).toMatch(/^seg_/);
    const got = await api.get(`/v1/segments/${created.body.id}`);
    expect(got.body).toEqual(created.body);

    const second = await api.post('/v1/segments', { name: 'Everyone', criteria: { any: [{ field: 'createdAt', op: 'gt', value: '2000-01-01' }] } });
    const list = await api.get('/v1/segments');
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([second.body.id, created.body.id]);
    expect(list.body.data[0]).not.toHaveProperty('contactCount');

    const updated = await api.patch(`/v1/segments/${created.body.id}`, { criteria: { all: [{ field: 'attributes.plan', op: 'in', value: ['pro', 'free'] }] } });
    expect(updated.status).toBe(200);
    // the new criteria are counted in the background (the send-worker's job, run here by hand)
    expect(updated.body).toMatchObject({ name: 'Pros', contactCount: 1, countedAt: created.body.countedAt });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(updated.body.countedAt));
    expect(await recountSegment(t.deps, created.body.id)).toEqual({ contactCount: 2 });
    const renamed = await api.patch(`/v1/segments/${created.body.id}`, { name: 'Paying-ish' });
    expect(renamed.body).toMatchObject({ name: 'Paying-ish', contactCount: 2 });
    expect((await api.patch(`/v1/segments/${created.body.id}`, {})).status).toBe(400);
    const badUpdate = await api.patch(`/v1/segments/${created.body.id}`, { criteria: { all: [{ field: 'x', op: 'eq', value: 1 }] } });
    expect(badUpdate.body.message).toMatch(/^criteria\.all\.0\.field:/);

    const contacts = await api.get(`/v1/segments/${second.body.id}/contacts?limit=3`);
    expect(contacts.body.data.map((c: { id: string }) => byId[c.id])).toEqual(['dee', 'cyd', 'bob']);
    const rest = await api.get(`/v1/segments/${second.body.id}/contacts?limit=3&cursor=${contacts.body.nextCursor}`);
    expect(rest.body.data.map((c: { id: string }) => byId[c.id])).toEqual(['ada']);
    expect(rest.body.hasMore).toBe(false);

    expect((await api.delete(`/v1/segments/${created.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/segments/${created.body.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/segments/${created.body.id}`)).status).toBe(404);
  });

  it('segment.get never counts: twelve concurrent reads answer the stored count and ask for one background recount', async () => {
    const { api } = await people();
    const created = await api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    expect(created.body).toMatchObject({ contactCount: 1, countedAt: expect.any(String) });
    for (const email of ['eve@example.com', 'fay@example.com']) expect((await api.post('/v1/contacts', { email, attributes: { plan: 'pro' } })).status).toBe(201);

    // counting at each read made these twelve table scans (an expensive segment's starved every other organization)
    const reads = await Promise.all(Array.from({ length: 12 }, () => api.get(`/v1/segments/${created.body.id}`)));
    expect(reads.map((r) => [r.status, r.body.contactCount, r.body.countedAt])).toEqual(reads.map(() => [200, 1, created.body.countedAt]));
    // one recount asked for, however many reads found the count stale
    const queue = t.deps.queues['segment-counts'];
    const asked = (await queue.getJobs(['waiting', 'prioritized', 'active', 'delayed'])).filter((job) => job.data.segmentId === created.body.id);
    expect(asked.map((job) => job.id)).toEqual([created.body.id]);

    // the job (a send-worker runs it) stores the new count, which the next read answers
    expect(await recountSegment(t.deps, created.body.id)).toEqual({ contactCount: 3 });
    const after = await api.get(`/v1/segments/${created.body.id}`);
    expect(after.body.contactCount).toBe(3);
    expect(Date.parse(after.body.countedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.countedAt));
  });

  it('segment.update never counts in the request: sixteen concurrent updates answer at once and queue one recount each, of which only the latest counts', async () => {
    const { api } = await people();
    const created = await api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    // before, each of these counted in its request: 16 scans at once of an expensive segment slowed every organization
    const plans = Array.from({ length: 16 }, (_, i) => `plan-${i}`);
    const updates = await Promise.all(
      plans.map((plan) => api.patch(`/v1/segments/${created.body.id}`, { criteria: { any: [{ field: 'attributes.plan', op: 'in', value: ['pro', 'free', plan] }] } })),
    );
    expect(updates.map((u) => [u.status, u.body.contactCount, u.body.countedAt])).toEqual(updates.map(() => [200, 1, created.body.countedAt]));
    const queue = t.deps.queues['segment-counts'];
    const asked = (await queue.getJobs(['delayed'])).filter((job) => job.data.segmentId === created.body.id);
    // one per version of the criteria (updates within the same millisecond share one)
    expect(asked.length).toBeGreaterThan(1);
    expect(asked.length).toBeLessThanOrEqual(16);
    // in the organization's turn, never ahead of other organizations' waiting recounts
    expect(asked.every((job) => job.opts.priority! > 0)).toBe(true);
    // each asked for its own version: every one but the latest finds the segment updated since, and skips
    const results = await Promise.all(asked.map((job) => recountSegment(t.deps, job.data.segmentId, job.data.updatedAt)));
    expect(results.filter((r) => r.contactCount !== null)).toEqual([{ contactCount: 2 }]);
    expect((await api.get(`/v1/segments/${created.body.id}`)).body.contactCount).toBe(2);
  });

  it('contact.list?segmentId applies the same criteria, with the other filters', async () => {
    const { api, byId } = await people();
    const seg = await api.post('/v1/segments', { name: 'Has plan', criteria: { all: [{ field: 'attributes.plan', op: 'exists' }] } });
    const res = await api.get(`/v1/contacts?segmentId=${seg.body.id}`);
    expect(res.body.data.map((c: { id: string }) => byId[c.id])).toEqual(['cyd', 'bob', 'ada']);
    const narrowed = await api.get(`/v1/contacts?segmentId=${seg.body.id}&subscribed=true&q=a`);
    expect(narrowed.body.data.map((c: { id: string }) => byId[c.id])).toEqual(['ada']);
    const unknown = await api.get('/v1/contacts?segmentId=seg_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'NOT_FOUND', message: 'Segment not found' });
  });

  it("another organization's segment is 404 everywhere, and its contacts never leak into a segment", async () => {
    const owner = await people();
    const stranger = await t.org();
    await stranger.api.post('/v1/contacts', { email: 'stranger@example.com', attributes: { plan: 'pro' } });
    const seg = await owner.api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    expect(seg.body.contactCount).toBe(1); // not 2: the stranger's pro contact is not counted
    const id = seg.body.id;
    const attempts = [
      stranger.api.get(`/v1/segments/${id}`),
      stranger.api.patch(`/v1/segments/${id}`, { name: 'mine' }),
      stranger.api.delete(`/v1/segments/${id}`),
      stranger.api.get(`/v1/segments/${id}/contacts`),
      stranger.api.get(`/v1/contacts?segmentId=${id}`),
    ];
    for (const res of await Promise.all(attempts)) expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Segment not found' });
    expect((await stranger.api.get('/v1/segments')).body.data).toEqual([]);
    expect((await owner.api.get(`/v1/segments/${id}`)).body).toEqual(seg.body);
  });
});
