import { testDatabaseUrl } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

type Api = Awaited<ReturnType<typeof t.org>>['api'];
const eventsOf = (orgId: string, type: string) => t.deps.db.event.findMany({ where: { orgId, type }, orderBy: { createdAt: 'asc' } });
const suppressionsOf = (orgId: string) => t.deps.db.suppression.findMany({ where: { orgId }, orderBy: { recipient: 'asc' } });
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((c) => c.id);

async function makeContacts(api: Api, rows: object[]) {
  const res = await api.post('/v1/contacts/bulk', { contacts: rows });
  expect(res.status).toBe(200);
  expect(res.body.errors).toEqual([]);
  return res.body.created as { id: string }[];
}

describe('contact.create', () => {
  it('creates a contact with a lower-cased email, an E.164 phone and attributes, and records contact.created', async () => {
    const { api, orgId } = await t.org();
    const res = await api.post('/v1/contacts', {
      email: 'Ada.Lovelace@Example.COM',
      phone: '+1 (415) 555-2671',
      firstName: 'Ada',
      lastName: 'Lovelace',
      attributes: { plan: 'pro', seats: 3, trial: false, dropped: null },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: 'ada.lovelace@example.com',
      phone: '+14155552671',
      firstName: 'Ada',
      lastName: 'Lovelace',
      attributes: { plan: 'pro', seats: 3, trial: false },
      emailSubscribed: true,
      smsSubscribed: true,
    });
    expect(res.body.id).toMatch(/^con_/);
    const events = await eventsOf(orgId, 'contact.created');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual(res.body);
  });

  it('409 for the same email in another case, or the same phone written differently; another org may reuse them', async () => {
    const { api } = await t.org();
    expect((await api.post('/v1/contacts', { email: 'dup@example.com', phone: '+14155550100' })).status).toBe(201);
    const sameEmail = await api.post('/v1/contacts', { email: 'DUP@example.com' });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body).toEqual({ code: 'CONFLICT', message: 'email: another contact in this organization has this email' });
    const samePhone = await api.post('/v1/contacts', { phone: '+1 415-555-0100' });
    expect(samePhone.status).toBe(409);
    expect(samePhone.body.message).toMatch(/^phone:/);
    const other = await t.org();
    expect((await other.api.post('/v1/contacts', { email: 'dup@example.com', phone: '+14155550100' })).status).toBe(201);
  });

  it('two concurrent creates of one address: the unique index lets one through and the other is 409', async () => {
    const { api, orgId } = await t.org();
    const results = await Promise.all([0, 1, 2].map((i) => api.post('/v1/contacts', { email: `RACE@example.com`, firstName: `n${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(1);
  });

  it('many contacts may lack an email or a phone (NULLs do not collide)', async () => {
    const { api } = await t.org();
    expect((await api.post('/v1/contacts', { phone: '+14155550101' })).status).toBe(201);
    expect((await api.post('/v1/contacts', { phone: '+14155550102' })).status).toBe(201);
    expect((await api.post('/v1/contacts', { email: 'a@example.com' })).status).toBe(201);
    expect((await api.post('/v1/contacts', { email: 'b@example.com' })).status).toBe(201);
  });

  it('bad input is 400 naming the field, and nothing is stored', async () => {
    const { api, orgId } = await t.org();
    const cases: [object, RegExp][] = [
      [{}, /^email: email or phone is required/],
      [{ email: 'not-an-email' }, /^email:/],
      [{ phone: '12345' }, /^phone: must be a valid phone number/],
      [{ email: 'x@example.com', nickname: 'x' }, /^nickname: unknown field/],
      [{ email: 'x@example.com', attributes: { 'bad key': 1 } }, /^attributes/],
      [{ email: 'x@example.com', attributes: { big: 'x'.repeat(5000) } }, /^attributes\.big: at most 4096 characters as JSON/],
      [{ email: 'x@example.com', attributes: { deep: { a: { b: { c: { d: { e: { f: 1 } } } } } } } }, /^attributes\.deep: a\.b\.c\.d\.e: nests deeper than 5 levels/],
      [{ email: 'x@example.com', emailSubscribed: 'no' }, /^emailSubscribed:/],
    ];
    for (const [body, message] of cases) {
      const res = await api.post('/v1/contacts', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toMatch(message);
    }
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(0);
  });

  it('an unsubscribed channel writes an unsubscribed suppression for its address', async () => {
    const { api, orgId } = await t.org();
    await api.post('/v1/contacts', { email: 'quiet@example.com', phone: '+14155550103', emailSubscribed: false });
    expect(await suppressionsOf(orgId)).toEqual([expect.objectContaining({ recipient: 'quiet@example.com', reason: 'unsubscribed' })]);
  });

  it('Idempotency-Key replays the first response and creates one contact', async () => {
    const { api, orgId } = await t.org();
    const headers = { 'idempotency-key': 'create-once' };
    const first = await api.post('/v1/contacts', { email: 'once@example.com' }, headers);
    const again = await api.post('/v1/contacts', { email: 'once@example.com' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(1);
    const different = await api.post('/v1/contacts', { email: 'twice@example.com' }, headers);
    expect(different.status).toBe(409);
  });
});

describe('contact.get, contact.update, contact.delete', () => {
  it('gets a contact; an unknown id is 404', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/contacts', { email: 'get@example.com' });
    const res = await api.get(`/v1/contacts/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    const missing = await api.get('/v1/contacts/con_nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'Contact not found' });
  });

  it('updates partially, merges attributes key by key (null removes), and records contact.updated', async () => {
    const { api, orgId } = await t.org();
    const created = await api.post('/v1/contacts', { email: 'u@example.com', firstName: 'Old', attributes: { plan: 'free', seats: 1, keep: true } });
    const res = await api.patch(`/v1/contacts/${created.body.id}`, {
      firstName: 'New',
      phone: '+44 20 7946 0958',
      attributes: { plan: 'pro', seats: null, added: 'x', address: { city: 'London', lines: ['1 Main St'] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: 'u@example.com',
      firstName: 'New',
      phone: '+442079460958',
      attributes: { plan: 'pro', keep: true, added: 'x', address: { city: 'London', lines: ['1 Main St'] } },
    });
    expect(res.body.attributes).not.toHaveProperty('seats');
    const events = await eventsOf(orgId, 'contact.updated');
    expect(events.map((e) => e.data)).toEqual([res.body]);
  });

  it('update: 409 on another contact’s email, 400 for a bad phone or removing both addresses, unchanged after', async () => {
    const { api } = await t.org();
    await api.post('/v1/contacts', { email: 'taken@example.com' });
    const mine = await api.post('/v1/contacts', { email: 'mine@example.com' });
    const conflict = await api.patch(`/v1/contacts/${mine.body.id}`, { email: 'TAKEN@example.com' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toMatch(/^email:/);
    expect((await api.patch(`/v1/contacts/${mine.body.id}`, { phone: 'call me' })).body.message).toMatch(/^phone:/);
    const empty = await api.patch(`/v1/contacts/${mine.body.id}`, { email: null });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/^email: a contact needs an email or a phone/);
    expect((await api.patch(`/v1/contacts/${mine.body.id}`, { colour: 'red' })).status).toBe(400);
    expect((await api.patch(`/v1/contacts/${mine.body.id}`, {})).body.message).toMatch(/give at least one field/);
    expect((await api.patch('/v1/contacts/con_nope', { firstName: 'x' })).status).toBe(404);
    expect((await api.get(`/v1/contacts/${mine.body.id}`)).body).toEqual(mine.body);
  });

  it('unsubscribing suppresses the address; re-subscribing lifts only that unsubscribe, never a bounce', async () => {
    const { api, orgId } = await t.org();
    const c = await api.post('/v1/contacts', { email: 's@example.com', phone: '+14155550104' });
    await t.deps.db.suppression.create({ data: { orgId, recipient: '+14155550104', reason: 'bounced' } });
    await api.patch(`/v1/contacts/${c.body.id}`, { emailSubscribed: false, smsSubscribed: false });
    expect((await suppressionsOf(orgId)).map((s) => [s.recipient, s.reason])).toEqual([
      ['+14155550104', 'bounced'],
      ['s@example.com', 'unsubscribed'],
    ]);
    await api.patch(`/v1/contacts/${c.body.id}`, { emailSubscribed: true, smsSubscribed: true });
    expect((await suppressionsOf(orgId)).map((s) => [s.recipient, s.reason])).toEqual([['+14155550104', 'bounced']]);
  });

  it('deletes: 204, then 404, contact.deleted recorded with the contact; a second delete is 404', async () => {
    const { api, orgId } = await t.org();
    const c = await api.post('/v1/contacts', { email: 'bye@example.com' });
    expect((await api.delete(`/v1/contacts/${c.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/contacts/${c.body.id}`)).status).toBe(404);
    expect((await eventsOf(orgId, 'contact.deleted')).map((e) => e.data)).toEqual([c.body]);
    expect((await api.delete(`/v1/contacts/${c.body.id}`)).status).toBe(404);
  });

  it("another organization's contact id is 404 for get, update and delete, and changes nothing", async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const c = await owner.api.post('/v1/contacts', { email: 'private@example.com' });
    const attempts = [
      stranger.api.get(`/v1/contacts/${c.body.id}`),
      stranger.api.patch(`/v1/contacts/${c.body.id}`, { firstName: 'Mallory' }),
      stranger.api.delete(`/v1/contacts/${c.body.id}`),
    ];
    for (const res of await Promise.all(attempts)) expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Contact not found' });
    expect((await owner.api.get(`/v1/contacts/${c.body.id}`)).body).toEqual(c.body);
    expect(ids(await stranger.api.get('/v1/contacts'))).toEqual([]);
    expect(ids(await stranger.api.get('/v1/contacts?email=private@example.com'))).toEqual([]);
  });
});

describe('contact.list', () => {
  it('filters by email, phone, q, subscribed and creation time; pages with a cursor', async () => {
    const { api } = await t.org();
    const [ada, grace, alan] = await makeContacts(api, [
      { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      { email: 'grace@navy.mil', phone: '+14155550105', firstName: 'Grace', lastName: 'Hopper', emailSubscribed: false, smsSubscribed: false },
      { email: 'alan@example.com', firstName: 'Alan', lastName: 'Turing', smsSubscribed: false },
    ]);
    expect(ids(await api.get('/v1/contacts'))).toEqual([alan!.id, grace!.id, ada!.id]);
    expect(ids(await api.get('/v1/contacts?email=ADA@example.com'))).toEqual([ada!.id]);
    expect(ids(await api.get(`/v1/contacts?phone=${encodeURIComponent('+1 415 555 0105')}`))).toEqual([grace!.id]);
    expect(ids(await api.get('/v1/contacts?q=al'))).toEqual([alan!.id]);
    expect(ids(await api.get('/v1/contacts?q=hop'))).toEqual([grace!.id]);
    expect(ids(await api.get(`/v1/contacts?q=${encodeURIComponent('ada lov')}`))).toEqual([ada!.id]);
    expect(ids(await api.get('/v1/contacts?q=%25'))).toEqual([]); // a literal %, not a wildcard
    expect(ids(await api.get('/v1/contacts?subscribed=false'))).toEqual([grace!.id]);
    expect(ids(await api.get('/v1/contacts?subscribed=true'))).toEqual([alan!.id, ada!.id]);
    expect(ids(await api.get('/v1/contacts?createdAfter=2999-01-01T00:00:00Z'))).toEqual([]);
    expect(ids(await api.get('/v1/contacts?createdBefore=2999-01-01T00:00:00Z'))).toHaveLength(3);

    const first = await api.get('/v1/contacts?limit=2');
    expect(first.body.hasMore).toBe(true);
    const second = await api.get(`/v1/contacts?limit=2&cursor=${first.body.nextCursor}`);
    expect([...ids(first), ...ids(second)]).toEqual([alan!.id, grace!.id, ada!.id]);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(ids(await api.get('/v1/contacts?limit=1&offset=2'))).toEqual([ada!.id]);
  });

  it('bad filters are 400 naming the parameter', async () => {
    const { api } = await t.org();
    expect((await api.get('/v1/contacts?subscribed=maybe')).body.message).toMatch(/^subscribed:/);
    expect((await api.get('/v1/contacts?createdAfter=yesterday')).body.message).toMatch(/^createdAfter:/);
    expect((await api.get('/v1/contacts?phone=abc')).body.message).toMatch(/^phone:/);
    expect((await api.get('/v1/contacts?limit=101')).status).toBe(400);
    expect((await api.get('/v1/contacts?cursor=garbage')).status).toBe(400);
  });
});

describe('contact.bulkCreate', () => {
  it('creates the valid rows and reports invalid, in-batch duplicate and existing-duplicate rows by index', async () => {
    const { api, orgId } = await t.org();
    await api.post('/v1/contacts', { email: 'exists@example.com' });
    const res = await api.post('/v1/contacts/bulk', {
      contacts: [
        { email: 'one@example.com', firstName: 'One' },
        { email: 'not an email' },
        { email: 'ONE@example.com' },
        { email: 'exists@example.com' },
        { phone: '+14155550106', smsSubscribed: false },
        { phone: '+1 415 555 0106' },
        { phone: 'nope' },
        { email: 'two@example.com', extra: true },
        'not an object',
        { email: 'three@example.com', attributes: { tier: 2 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.created.map((c: { email: string; phone: string }) => c.email ?? c.phone)).toEqual(['one@example.com', '+14155550106', 'three@example.com']);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'BAD_REQUEST'],
      [2, 'CONFLICT'],
      [3, 'CONFLICT'],
      [5, 'CONFLICT'],
      [6, 'BAD_REQUEST'],
      [7, 'BAD_REQUEST'],
      [8, 'BAD_REQUEST'],
    ]);
    const messages = Object.fromEntries(res.body.errors.map((e: { index: number; message: string }) => [e.index, e.message]));
    expect(messages[1]).toMatch(/^email:/);
    expect(messages[2]).toBe('email: same email as row 0 of this batch');
    expect(messages[3]).toBe('email: another contact in this organization has this email');
    expect(messages[5]).toBe('phone: same phone as row 4 of this batch');
    expect(messages[6]).toMatch(/^phone:/);
    expect(messages[7]).toBe('extra: unknown field');
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(4);
    expect(await eventsOf(orgId, 'contact.created')).toHaveLength(4);
    expect((await suppressionsOf(orgId)).map((s) => s.recipient)).toEqual(['+14155550106']);
  });

  it('takes 1,000 rows and refuses 1,001 (400, nothing created)', async () => {
    const { api, orgId } = await t.org();
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `bulk${i}@example.com`, attributes: { i } }));
    const over = await api.post('/v1/contacts/bulk', { contacts: rows(1001) });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/^contacts:/);
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(0);
    const full = await api.post('/v1/contacts/bulk', { contacts: rows(1000) });
    expect(full.status).toBe(200);
    expect(full.body.created).toHaveLength(1000);
    expect(full.body.errors).toEqual([]);
    expect(full.body.created[999].email).toBe('bulk999@example.com');
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(1000);
  });

  it('an empty list is 400; Idempotency-Key replays a bulk without creating twice', async () => {
    const { api, orgId } = await t.org();
    expect((await api.post('/v1/contacts/bulk', { contacts: [] })).status).toBe(400);
    const body = { contacts: [{ email: 'i1@example.com' }, { email: 'i2@example.com' }] };
    const first = await api.post('/v1/contacts/bulk', body, { 'idempotency-key': 'bulk-1' });
    const again = await api.post('/v1/contacts/bulk', body, { 'idempotency-key': 'bulk-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(2);
  });
});

describe('permissions', () => {
  it('a sending key gets 403 on contact operations', async () => {
    const { api } = await t.org();
    const sending = await api.post('/v1/api-keys', { name: 'sender', permission: 'sending' });
    const res = await t.anonymous.post('/v1/contacts', { email: 'x@example.com' }, { authorization: `Bearer ${sending.body.key}` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('time zones', () => {
  it('a session in another time zone still stores UTC times (bulk insert, events, suppressions)', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL ?? testDatabaseUrl().url);
    url.searchParams.set('options', '-c TimeZone=Pacific/Kiritimati'); // UTC+14
    const far = setupApi({ DATABASE_URL: url.toString() });
    try {
      const { api, orgId } = await far.org();
      const res = await api.post('/v1/contacts/bulk', { contacts: [{ email: 'tz@example.com', emailSubscribed: false }] });
      const createdAt = new Date(res.body.created[0].createdAt).getTime();
      expect(Math.abs(createdAt - Date.now())).toBeLessThan(60_000);
      const [event] = await t.deps.db.event.findMany({ where: { orgId } });
      expect(Math.abs(event!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
      const [suppression] = await t.deps.db.suppression.findMany({ where: { orgId } });
      expect(Math.abs(suppression!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect((await api.get(`/v1/contacts?createdAfter=${new Date(Date.now() - 60_000).toISOString()}`)).body.data).toHaveLength(1);
    } finally {
      await far.close();
    }
  });
});
