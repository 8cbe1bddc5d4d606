import { setupApi } from './setup.ts';

// No TELNYX_API_KEY: every key gets the sandbox number provider.
const t = setupApi();
afterAll(() => t.close());

const search = async (api: Awaited<ReturnType<typeof t.org>>['api'], query: string) => {
  const res = await api.get(`/v1/phone-numbers/available?${query}`);
  expect(res.status).toBe(200);
  return res.body.data as { number: string; type: string; country: string }[];
};
const eventsOf = (orgId: string, type: string) => t.deps.db.event.findMany({ where: { orgId, type }, orderBy: { createdAt: 'asc' } });

describe('phoneNumber.searchAvailable (sandbox)', () => {
  it('returns plausible E.164 numbers for the country, area code, contains and type asked', async () => {
    const { api } = await t.org();
    const local = await search(api, 'country=us&areaCode=415&limit=5');
    expect(local).toHaveLength(5);
    for (const n of local) {
      expect(n.number).toMatch(/^\+1415[2-9]\d{6}$/);
      expect(n).toMatchObject({ type: 'local', country: 'US' });
    }
    const containing = await search(api, 'country=US&contains=4242&limit=3');
    expect(containing.length).toBeGreaterThan(0);
    for (const n of containing) expect(n.number.slice(2)).toContain('4242');
    const tollFree = await search(api, 'country=US&type=tollFree&limit=3');
    for (const n of tollFree) expect(n.number).toMatch(/^\+18(00|33|44|55|66|77|88)\d{7}$/);
    const british = await search(api, 'country=GB&type=mobile&limit=2');
    for (const n of british) expect(n.number).toMatch(/^\+447\d{9}$/);
    expect(await search(api, 'country=US&type=tollFree&areaCode=415')).toEqual([]);
  });

  it('rejects bad queries naming the field', async () => {
    const { api } = await t.org();
    for (const [query, field] of [
      ['country=USA', 'country'],
      ['', 'country'],
      ['country=US&areaCode=abc', 'areaCode'],
      ['country=US&type=landline', 'type'],
      ['country=US&limit=101', 'limit'],
    ]) {
      const res = await api.get(`/v1/phone-numbers/available?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toContain(field);
    }
  });
});

describe('phoneNumber.purchase, list, get (sandbox)', () => {
  it('buys a number from a search: 201, the first becomes the default, an event is recorded', async () => {
    const { api, orgId } = await t.org();
    const [first, second] = await search(api, 'country=US&areaCode=312&limit=2');
    const bought = await api.post('/v1/phone-numbers', { number: first!.number, friendlyName: 'Support' });
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ number: first!.number, friendlyName: 'Support', isDefault: true, type: 'local', country: 'US', provider: 'sandbox' });
    expect(bought.body.id).toMatch(/^pn_/);
    const other = await api.post('/v1/phone-numbers', { number: second!.number });
    expect(other.body.isDefault).toBe(false);

    const events = await eventsOf(orgId, 'phoneNumber.purchased');
    expect(events.map((e) => (e.data as { id: string }).id)).toEqual([bought.body.id, other.body.id]);

    const list = await api.get('/v1/phone-numbers');
    expect(list.body.data.map((n: { id: string }) => n.id)).toEqual([other.body.id, bought.body.id]);
    expect((await api.get(`/v1/phone-numbers/${bought.body.id}`)).body).toEqual(bought.body);
    // an owned number is no longer offered
    expect((await search(api, 'country=US&areaCode=312&limit=2')).map((n) => n.number)).not.toContain(first!.number);
  });

  it('409 when the number is owned here already, in the same words whether this organization or another owns it', async () => {
    const a = await t.org();
    const b = await t.org();
    const [n] = await search(a.api, 'country=US&areaCode=617&limit=1');
    expect((await a.api.post('/v1/phone-numbers', { number: n!.number })).status).toBe(201);
    const again = await a.api.post('/v1/phone-numbers', { number: n!.number });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ code: 'CONFLICT', message: `Phone number ${n!.number} is not available` });
    const stranger = await b.api.post('/v1/phone-numbers', { number: n!.number });
    expect(stranger.status).toBe(409);
    expect(stranger.body).toEqual(again.body);
    expect((await b.api.get('/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('a test key is offered and sold only fictional numbers (+1 NXX 555-01xx); any other is 400 and stays free', async () => {
    const live = await t.org({ mode: 'live' });
    const test = await t.org({ mode: 'test' });
    const offered = await search(test.api, 'country=US&areaCode=415&limit=5');
    expect(offered).toHaveLength(5);
    for (const n of offered) expect(n.number).toMatch(/^\+141555501\d\d$/);
    for (const n of await search(test.api, 'country=US&contains=42&limit=5')) expect(n.number).toMatch(/^\+1\d{3}55501\d\d$/);
    expect(await search(test.api, 'country=US&type=tollFree&limit=3')).toEqual([]);
    expect(await search(test.api, 'country=GB&limit=3')).toEqual([]);
    // any area code's fictional numbers, not only those the sandbox searches by default
    expect((await test.api.post('/v1/phone-numbers', { number: '+13035550142' })).status).toBe(201);
    expect((await test.api.post('/v1/phone-numbers', { number: offered[0]!.number })).status).toBe(201);

    const [real] = await search(live.api, 'country=US&areaCode=415&limit=1');
    for (const number of [real!.number, '+14155550200', '+14155550099', '+447700900123']) {
      const res = await test.api.post('/v1/phone-numbers', { number });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^number: an sk_test_ key buys only sandbox numbers from the fictional range \+1 NXX 555-0100 to 555-0199/),
      });
    }
    expect((await live.api.post('/v1/phone-numbers', { number: real!.number })).status).toBe(201);
  });

  it('two organizations buying the same number at once: one gets it, the other 409', async () => {
    const a = await t.org();
    const b = await t.org();
    const [n] = await search(a.api, 'country=US&areaCode=737&type=mobile&limit=1');
    const results = await Promise.all([a.api.post('/v1/phone-numbers', { number: n!.number }), b.api.post('/v1/phone-numbers', { number: n!.number })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.deps.db.phoneNumber.count({ where: { number: n!.number } })).toBe(1);
  });

  it('400 for a number that is not E.164 or unknown fields; 409 for a number the provider cannot sell', async () => {
    const { api } = await t.org();
    const bad = await api.post('/v1/phone-numbers', { number: '415-555-0100' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('number');
    const extra = await api.post('/v1/phone-numbers', { number: '+14155550100', isDefault: true });
    expect(extra.status).toBe(400);
    const unsellable = await api.post('/v1/phone-numbers', { number: '+999123456789' });
    expect(unsellable.status).toBe(409);
    expect(unsellable.body.message).toContain('no longer available');
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('Idempotency-Key: the same purchase is answered once and replayed', async () => {
    const { api, orgId } = await t.org();
    const [n] = await search(api, 'country=US&areaCode=720&limit=1');
    const headers = { 'idempotency-key': `buy-${n!.number}` };
    const first = await api.post('/v1/phone-numbers', { number: n!.number }, headers);
    const replay = await api.post('/v1/phone-numbers', { number: n!.number }, headers);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await eventsOf(orgId, 'phoneNumber.purchased')).toHaveLength(1);
    const other = await api.post('/v1/phone-numbers', { number: n!.number, friendlyName: 'x' }, headers);
    expect(other.status).toBe(409);
  });
});

describe('phoneNumber.update (sandbox)', () => {
  it('sets and clears friendlyName; isDefault moves the default; validation names the field', async () => {
    const { api } = await t.org();
    const [a, b] = await search(api, 'country=US&areaCode=206&limit=2');
    const first = (await api.post('/v1/phone-numbers', { number: a!.number })).body;
    const second = (await api.post('/v1/phone-numbers', { number: b!.number })).body;

    const named = await api.patch(`/v1/phone-numbers/${second.id}`, { friendlyName: 'Alerts' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ friendlyName: 'Alerts', isDefault: false });
    expect((await api.patch(`/v1/phone-numbers/${second.id}`, { friendlyName: null })).body.friendlyName).toBeNull();

    const moved = await api.patch(`/v1/phone-numbers/${second.id}`, { isDefault: true });
    expect(moved.body.isDefault).toBe(true);
    expect((await api.get(`/v1/phone-numbers/${first.id}`)).body.isDefault).toBe(false);
    const unset = await api.patch(`/v1/phone-numbers/${second.id}`, { isDefault: false });
    expect(unset.body.isDefault).toBe(false);

    for (const body of [{}, { isDefault: 'yes' }, { friendlyName: '' }, { number: '+1' }]) {
      const res = await api.patch(`/v1/phone-numbers/${first.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
  });

  it("messagesPerSecond: its type's default until set, null goes back to it; out of range is 400; another organization's is 404", async () => {
    const { api } = await t.org();
    const [local] = await search(api, 'country=US&areaCode=312&limit=1');
    const [tollFree] = await search(api, 'country=US&type=tollFree&limit=1');
    const number = (await api.post('/v1/phone-numbers', { number: local!.number })).body;
    expect(number.messagesPerSecond).toBe(1); // a long code
    const free = (await api.post('/v1/phone-numbers', { number: tollFree!.number })).body;
    expect(free).toMatchObject({ type: 'tollFree', messagesPerSecond: 3 });

    const set = await api.patch(`/v1/phone-numbers/${number.id}`, { messagesPerSecond: 4.5 });
    expect(set.status).toBe(200);
    expect(set.body.messagesPerSecond).toBe(4.5);
    expect((await api.get('/v1/phone-numbers')).body.data.find((n: { id: string }) => n.id === number.id).messagesPerSecond).toBe(4.5);
    expect((await api.patch(`/v1/phone-numbers/${number.id}`, { messagesPerSecond: null })).body.messagesPerSecond).toBe(1);

    for (const messagesPerSecond of [0, -1, 5000, 'fast']) {
      const res = await api.patch(`/v1/phone-numbers/${number.id}`, { messagesPerSecond });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('messagesPerSecond') });
    }
    const stranger = await t.org();
    expect((await stranger.api.patch(`/v1/phone-numbers/${number.id}`, { messagesPerSecond: 50 })).status).toBe(404);
    expect((await api.get(`/v1/phone-numbers/${number.id}`)).body.messagesPerSecond).toBe(1);
  });

  it('two concurrent requests to make different numbers the default leave exactly one default', async () => {
    const { api, orgId } = await t.org();
    const found = await search(api, 'country=US&areaCode=305&limit=4');
    const ids: string[] = [];
    for (const n of found) ids.push((await api.post('/v1/phone-numbers', { number: n.number })).body.id);
    for (let round = 0; round < 5; round += 1) {
      const [x, y] = [ids[(round + 1) % ids.length]!, ids[(round + 2) % ids.length]!];
      const results = await Promise.all([api.patch(`/v1/phone-numbers/${x}`, { isDefault: true }), api.patch(`/v1/phone-numbers/${y}`, { isDefault: true })]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const defaults = await t.deps.db.phoneNumber.findMany({ where: { orgId, isDefault: true } });
      expect(defaults).toHaveLength(1);
      expect([x, y]).toContain(defaults[0]!.id);
    }
  });

  it('the database itself refuses a second default for an organization', async () => {
    const { api, orgId } = await t.org();
    const [a, b] = await search(api, 'country=US&areaCode=512&limit=2');
    await api.post('/v1/phone-numbers', { number: a!.number });
    const second = (await api.post('/v1/phone-numbers', { number: b!.number })).body;
    await expect(t.deps.db.phoneNumber.update({ where: { id: second.id }, data: { isDefault: true } })).rejects.toThrow();
    expect(await t.deps.db.phoneNumber.count({ where: { orgId, isDefault: true } })).toBe(1);
  });
});

describe('phoneNumber.release (sandbox)', () => {
  it('204, then the number is not found, not listed, reported as released, and can be bought again', async () => {
    const { api, orgId } = await t.org();
    const [n] = await search(api, 'country=US&areaCode=332&type=mobile&limit=1');
    const bought = (await api.post('/v1/phone-numbers', { number: n!.number })).body;
    expect(bought.type).toBe('mobile');
    expect((await api.delete(`/v1/phone-numbers/${bought.id}`)).status).toBe(204);
    const gone = await api.get(`/v1/phone-numbers/${bought.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 'NOT_FOUND', message: 'Phone number not found' });
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);
    expect(await t.deps.db.phoneNumber.findFirst({ where: { number: n!.number } })).toBeNull();
    const [released] = await eventsOf(orgId, 'phoneNumber.released');
    expect(released!.data).toMatchObject({ id: bought.id, number: n!.number });
    expect((await api.delete(`/v1/phone-numbers/${bought.id}`)).status).toBe(404);
    expect((await api.post('/v1/phone-numbers', { number: n!.number })).status).toBe(201);
  });
});

describe('phone numbers across organizations', () => {
  it("another organization's number id is 404 for get, update and release, and nothing changes", async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const [n] = await search(owner.api, 'country=US&areaCode=628&limit=1');
    const bought = (await owner.api.post('/v1/phone-numbers', { number: n!.number, friendlyName: 'Mine' })).body;
    const attempts = [
      stranger.api.get(`/v1/phone-numbers/${bought.id}`),
      stranger.api.patch(`/v1/phone-numbers/${bought.id}`, { friendlyName: 'Theirs', isDefault: true }),
      stranger.api.delete(`/v1/phone-numbers/${bought.id}`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Phone number not found' });
    }
    expect((await stranger.api.get('/v1/phone-numbers')).body.data).toEqual([]);
    expect((await owner.api.get(`/v1/phone-numbers/${bought.id}`)).body).toEqual(bought);
  });

  it('a sending key may not manage numbers', async () => {
    const { api } = await t.org();
    const sending = await api.post('/v1/api-keys', { name: 'send only', permission: 'sending' });
    const res = await t.anonymous.get('/v1/phone-numbers', { authorization: `Bearer ${sending.body.key}` });
    expect(res.status).toBe(403);
  });
});
