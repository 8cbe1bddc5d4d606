import { startFakeTelnyx, type FakeServer } from '@tidings/testing';
import Telnyx from 'telnyx';
import { searchOneNumber, setupApi } from './setup.ts';

// TELNYX_API_KEY is set: live keys go through the real telnyx SDK to the loopback fake; test keys to the sandbox.
const TELNYX_KEY = 'KEY0123456789SECRET';
let telnyx: FakeServer;
let t: ReturnType<typeof setupApi>;

beforeAll(async () => {
  telnyx = await startFakeTelnyx();
  t = setupApi({ TELNYX_API_KEY: TELNYX_KEY, TELNYX_BASE_URL: `${telnyx.url}/v2` });
});
afterAll(async () => {
  await t.close();
  await telnyx.close();
});
beforeEach(() => telnyx.reset());

const requestsTo = (method: string, prefix: string) => telnyx.requests.filter((r) => r.method === method && r.path.startsWith(prefix));

describe('phone numbers through Telnyx', () => {
  it('searches with the filters asked, through the SDK (the fake answers by area code, contains and limit)', async () => {
    const { api } = await t.org();
    const res = await api.get('/v1/phone-numbers/available?country=US&areaCode=312&contains=77&limit=3');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    for (const n of res.body.data) {
      expect(n.number).toMatch(/^\+1312\d{7}$/);
      expect(n.number.slice(2)).toContain('77');
      expect(n).toMatchObject({ country: 'US', region: 'CA', locality: 'San Francisco', monthlyCost: { amount: '1.00', currency: 'USD' } });
    }
    const [request] = requestsTo('GET', '/v2/available_phone_numbers');
    expect(request!.headers.authorization).toBe(`Bearer ${TELNYX_KEY}`);
  });

  it('purchase orders the number with our id as reference, stores the Telnyx number id; update and release reach Telnyx', async () => {
    const { api, orgId } = await t.org();
    const number = await searchOneNumber(api);
    const bought = await api.post('/v1/phone-numbers', { number });
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ number, provider: 'telnyx', type: 'local', country: 'US', isDefault: true });
    const [order] = requestsTo('POST', '/v2/number_orders');
    expect(order!.body).toEqual({ phone_numbers: [{ phone_number: number }], customer_reference: bought.body.id });
    const row = await t.deps.db.phoneNumber.findUniqueOrThrow({ where: { id: bought.body.id } });
    expect(row.providerNumberId).toMatch(/^\d+$/);

    const renamed = await api.patch(`/v1/phone-numbers/${bought.body.id}`, { friendlyName: 'Support line' });
    expect(renamed.status).toBe(200);
    const [patch] = requestsTo('PATCH', '/v2/phone_numbers/');
    expect(patch!.path).toBe(`/v2/phone_numbers/${row.providerNumberId}`);
    expect(patch!.body).toEqual({ customer_reference: 'Support line' });

    expect((await api.delete(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(204);
    expect(requestsTo('DELETE', '/v2/phone_numbers/').map((r) => r.path)).toEqual([`/v2/phone_numbers/${row.providerNumberId}`]);
    expect((await api.get(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(404);
    expect(await t.deps.db.event.count({ where: { orgId, type: { in: ['phoneNumber.purchased', 'phoneNumber.released'] } } })).toBe(2);
  });

  it('409 saying so when the number was sold elsewhere since the search; nothing is stored', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=212&limit=1');
    // someone outside this install buys it first, straight at Telnyx
    const elsewhere = new Telnyx({ apiKey: 'another-account', baseURL: `${telnyx.url}/v2`, maxRetries: 0 });
    await elsewhere.numberOrders.create({ phone_numbers: [{ phone_number: number }] });
    const res = await api.post('/v1/phone-numbers', { number });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CONFLICT', message: `Phone number ${number} is no longer available; search again and pick another` });
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('a Telnyx outage is a retryable INTERNAL_SERVER_ERROR without the provider text; the idempotency key is freed for the retry', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=312&limit=1');
    telnyx.failNext(1, { kind: 'status', status: 503, body: { errors: [{ code: '10007', detail: `upstream down, key ${TELNYX_KEY}` }] } }, '/v2/number_orders');
    const headers = { 'idempotency-key': 'buy-during-outage' };
    const failed = await api.post('/v1/phone-numbers', { number }, headers);
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('INTERNAL_SERVER_ERROR');
    expect(failed.body.message).toMatch(/unavailable.*retry/);
    expect(JSON.stringify(failed.body)).not.toMatch(/upstream|KEY0123/);
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);

    const retried = await api.post('/v1/phone-numbers', { number }, headers);
    expect(retried.status).toBe(201);
  });

  it('search and release during an outage fail retryably and change nothing', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=206&limit=1');
    const bought = (await api.post('/v1/phone-numbers', { number })).body;
    telnyx.failNext(2, { kind: 'status', status: 500 }, '/v2/phone_numbers/');
    const release = await api.delete(`/v1/phone-numbers/${bought.id}`);
    expect(release.status).toBe(503);
    expect(release.body.code).toBe('INTERNAL_SERVER_ERROR');
    expect((await api.get(`/v1/phone-numbers/${bought.id}`)).status).toBe(200);

    telnyx.failNext(2, { kind: 'status', status: 502 }, '/v2/available_phone_numbers');
    const search = await api.get('/v1/phone-numbers/available?country=US');
    expect(search.status).toBe(503);
  });

  it('credentials Telnyx refuses are a 502 for the operator, not a 409', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=617&limit=1');
    telnyx.failNext(1, { kind: 'status', status: 401, body: { errors: [{ code: '10009', title: 'Authentication failed' }] } }, '/v2/number_orders');
    const res = await api.post('/v1/phone-numbers', { number });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'The phone number provider refused the request; an operator should check its configuration' });
  });

  it('test keys never reach Telnyx', async () => {
    const { api } = await t.org({ mode: 'test' });
    const number = await searchOneNumber(api, 'country=US&areaCode=720&limit=1');
    const bought = await api.post('/v1/phone-numbers', { number });
    expect(bought.body.provider).toBe('sandbox');
    expect((await api.delete(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(204);
    expect(telnyx.requests).toEqual([]);
  });

  it('a test key gets 403 naming why on any change to a Telnyx number, and Telnyx hears nothing', async () => {
    const { api } = await t.org({ mode: 'live' });
    const bought = (await api.post('/v1/phone-numbers', { number: await searchOneNumber(api) })).body;
    const test = t.client((await api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    telnyx.reset();
    for (const res of [await test.patch(`/v1/phone-numbers/${bought.id}`, { friendlyName: 'Mine' }), await test.delete(`/v1/phone-numbers/${bought.id}`)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'FORBIDDEN', message: expect.stringMatching(/^A test key may read but not change what live sends use .*numbers/) });
    }
    expect(telnyx.requests).toEqual([]);
    expect((await api.get(`/v1/phone-numbers/${bought.id}`)).body).toEqual(bought);
  });
});

describe('the Telnyx messaging profile', () => {
  const sendFrom = (deps: typeof t.deps, from: string) => deps.providers.sms('telnyx')!.sendSms({ messageId: 'msg_profile', from, to: '+14155550199', body: 'hi' });

  it('orders numbers onto TELNYX_MESSAGING_PROFILE_ID, so a purchased number can send at once; one without a profile cannot', async () => {
    const withProfile = setupApi({ TELNYX_API_KEY: TELNYX_KEY, TELNYX_BASE_URL: `${telnyx.url}/v2`, TELNYX_MESSAGING_PROFILE_ID: 'mp_fake_default' });
    try {
      const { api } = await withProfile.org({ mode: 'live' });
      const number = await searchOneNumber(api, 'country=US&areaCode=646&limit=1');
      expect((await api.post('/v1/phone-numbers', { number })).status).toBe(201);
      expect(requestsTo('POST', '/v2/number_orders')[0]!.body).toMatchObject({ messaging_profile_id: 'mp_fake_default' });
      await expect(sendFrom(withProfile.deps, number)).resolves.toEqual({ providerMessageId: expect.any(String) });
    } finally {
      await withProfile.close();
    }

    // without the setting the order carries no profile, and Telnyx refuses to send from the number
    const { api } = await t.org({ mode: 'live' });
    const bare = await searchOneNumber(api, 'country=US&areaCode=718&limit=1');
    expect((await api.post('/v1/phone-numbers', { number: bare })).status).toBe(201);
    await expect(sendFrom(t.deps, bare)).rejects.toMatchObject({ name: 'ProviderError', isRetryable: false, status: 422 });
  });

  it('refuses an order naming a profile Telnyx does not know, and stores no number', async () => {
    const unknown = setupApi({ TELNYX_API_KEY: TELNYX_KEY, TELNYX_BASE_URL: `${telnyx.url}/v2`, TELNYX_MESSAGING_PROFILE_ID: 'mp_not_ours' });
    try {
      const { api, orgId } = await unknown.org({ mode: 'live' });
      const number = await searchOneNumber(api, 'country=US&areaCode=917&limit=1');
      const res = await api.post('/v1/phone-numbers', { number });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await unknown.deps.db.phoneNumber.count({ where: { orgId } })).toBe(0);
    } finally {
      await unknown.close();
    }
  });
});
