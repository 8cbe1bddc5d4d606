import { apiClient, startFakeTelnyx, startFakeTwilio, type FakeServer, type FakeTwilio } from '@tidings/testing';
import { searchOneNumber, setupApi } from './setup.ts';

// SMS_PROVIDERS=twilio: live keys buy numbers through the real twilio SDK at the loopback fake; test keys in the sandbox.
let twilio: FakeTwilio;
let telnyx: FakeServer;
let t: ReturnType<typeof setupApi>;
let twilioEnv: Record<string, string>;

beforeAll(async () => {
  [twilio, telnyx] = await Promise.all([startFakeTwilio(), startFakeTelnyx()]);
  twilioEnv = { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_BASE_URL: twilio.url };
  t = setupApi({ ...twilioEnv, SMS_PROVIDERS: 'twilio' });
});
afterAll(async () => {
  await t.close();
  await twilio.close();
  await telnyx.close();
});
beforeEach(() => {
  twilio.reset();
  telnyx.reset();
});

const accountPath = () => `/2010-04-01/Accounts/${twilio.accountSid}`;
const requestsTo = (method: string, suffix: string) => twilio.requests.filter((r) => r.method === method && r.path.startsWith(`${accountPath()}${suffix}`));
const form = (body: unknown) => Object.fromEntries(new URLSearchParams(String(body)));

describe('phone numbers through Twilio', () => {
  it('searches with the filters asked, through the SDK with basic auth', async () => {
    const { api } = await t.org();
    const res = await api.get('/v1/phone-numbers/available?country=US&areaCode=312&contains=77&limit=3');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    for (const n of res.body.data) {
      expect(n.number).toMatch(/^\+1312\d{7}$/);
      expect(n.number.slice(2)).toContain('77');
      expect(n).toMatchObject({ type: 'local', country: 'US', region: 'CA', locality: 'San Francisco', features: ['voice', 'sms', 'mms'], monthlyCost: null });
    }
    const [request] = requestsTo('GET', '/AvailablePhoneNumbers/US/Local.json');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`);
    expect((await api.get('/v1/phone-numbers/available?country=US&type=tollFree&limit=1')).body.data[0].number).toMatch(/^\+1888/);
    expect(requestsTo('GET', '/AvailablePhoneNumbers/US/TollFree.json')).toHaveLength(1);
  });

  it('purchase buys the number with inbound SMS routed to our callback URL; update and release reach Twilio', async () => {
    const { api, orgId } = await t.org();
    const number = await searchOneNumber(api);
    const bought = await api.post('/v1/phone-numbers', { number });
    expect(bought.status).toBe(201);
    // Twilio's number names no type or country: both come from the number itself
    expect(bought.body).toMatchObject({ number, provider: 'twilio', type: 'local', country: 'US', isDefault: true });
    const [purchase] = requestsTo('POST', '/IncomingPhoneNumbers.json');
    expect(form(purchase!.body)).toEqual({ PhoneNumber: number, FriendlyName: bought.body.id, SmsUrl: 'http://localhost:3000/v1/provider-events/twilio', SmsMethod: 'POST' });
    const row = await t.deps.db.phoneNumber.findUniqueOrThrow({ where: { id: bought.body.id } });
    expect(row.providerNumberId).toMatch(/^PN[0-9a-f]{32}$/);
    expect(twilio.state.numbers.get(row.providerNumberId!)).toMatchObject({ phone_number: number });

    const renamed = await api.patch(`/v1/phone-numbers/${bought.body.id}`, { friendlyName: 'Support line' });
    expect(renamed.status).toBe(200);
    const [update] = requestsTo('POST', `/IncomingPhoneNumbers/${row.providerNumberId}.json`);
    expect(form(update!.body)).toEqual({ FriendlyName: 'Support line' });

    expect((await api.delete(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(204);
    expect(requestsTo('DELETE', '/IncomingPhoneNumbers/').map((r) => r.path)).toEqual([`${accountPath()}/IncomingPhoneNumbers/${row.providerNumberId}.json`]);
    expect(twilio.state.numbers.has(row.providerNumberId!)).toBe(false);
    expect((await api.get(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(404);
    expect(await t.deps.db.event.count({ where: { orgId, type: { in: ['phoneNumber.purchased', 'phoneNumber.released'] } } })).toBe(2);
    expect(telnyx.requests).toEqual([]);
  });

  it('a toll-free number is stored as tollFree', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&type=tollFree&limit=1');
    expect((await api.post('/v1/phone-numbers', { number })).body).toMatchObject({ number, type: 'tollFree', country: 'US', provider: 'twilio' });
  });

  it('409 when Twilio says the number is no longer available (21422); nothing is stored', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=212&limit=1');
    twilio.failNext(
      1,
      { kind: 'status', status: 400, body: { code: 21422, message: 'PhoneNumber requested is not available', status: 400 } },
      `${accountPath()}/IncomingPhoneNumbers.json`,
    );
    const res = await api.post('/v1/phone-numbers', { number });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CONFLICT', message: `Phone number ${number} is no longer available; search again and pick another` });
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('a Twilio outage is a retryable 503 without its text and changes nothing; credentials refused are a 502', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=206&limit=1');
    twilio.failNext(
      1,
      { kind: 'status', status: 503, body: { code: 20500, message: `down, token ${twilio.authToken}`, status: 503 } },
      `${accountPath()}/IncomingPhoneNumbers.json`,
    );
    const failed = await api.post('/v1/phone-numbers', { number });
    expect(failed.status).toBe(503);
    expect(failed.body.message).toMatch(/unavailable.*retry/);
    expect(JSON.stringify(failed.body)).not.toContain(twilio.authToken);
    expect((await api.get('/v1/phone-numbers')).body.data).toEqual([]);

    const bought = (await api.post('/v1/phone-numbers', { number })).body;
    twilio.failNext(1, { kind: 'status', status: 500 }, `${accountPath()}/IncomingPhoneNumbers/`);
    expect((await api.delete(`/v1/phone-numbers/${bought.id}`)).status).toBe(503);
    expect((await api.get(`/v1/phone-numbers/${bought.id}`)).status).toBe(200);

    twilio.failNext(1, { kind: 'status', status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } }, `${accountPath()}/AvailablePhoneNumbers`);
    const search = await api.get('/v1/phone-numbers/available?country=US');
    expect(search.status).toBe(502);
  });

  it('a number Twilio no longer has is still released here', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=617&limit=1');
    const bought = (await api.post('/v1/phone-numbers', { number })).body;
    twilio.state.numbers.clear();
    expect((await api.delete(`/v1/phone-numbers/${bought.id}`)).status).toBe(204);
  });

  it('a test key of the same organization cannot release or relabel a Twilio number (403); Twilio hears nothing', async () => {
    const { api } = await t.org();
    const number = await searchOneNumber(api, 'country=US&areaCode=628&limit=1');
    const bought = (await api.post('/v1/phone-numbers', { number })).body;
    const testKey = (await api.post('/v1/api-keys', { name: 'tests', mode: 'test' })).body.key as string;
    const asTest = apiClient(t.app, testKey);
    twilio.reset();
    for (const res of [await asTest.delete(`/v1/phone-numbers/${bought.id}`), await asTest.patch(`/v1/phone-numbers/${bought.id}`, { friendlyName: 'x' })]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'FORBIDDEN',
        message: 'A test key may read but not change what live sends use (contacts, templates, segments, domains and numbers); use a live key or the dashboard.',
      });
    }
    // any change is refused, even one that would reach no provider (making it the default)
    expect((await asTest.patch(`/v1/phone-numbers/${bought.id}`, { isDefault: true })).status).toBe(403);
    expect(twilio.requests).toEqual([]);
    expect((await api.get(`/v1/phone-numbers/${bought.id}`)).body.friendlyName).toBeNull();
  });

  it('test keys never reach Twilio', async () => {
    const { api } = await t.org({ mode: 'test' });
    const number = await searchOneNumber(api, 'country=US&areaCode=720&limit=1');
    const bought = await api.post('/v1/phone-numbers', { number });
    expect(bought.body.provider).toBe('sandbox');
    expect((await api.delete(`/v1/phone-numbers/${bought.body.id}`)).status).toBe(204);
    expect(twilio.requests).toEqual([]);
  });
});

describe('which provider sells numbers', () => {
  it('the first of SMS_PROVIDERS that sells numbers buys; a number is released where it was bought', async () => {
    const both = { ...twilioEnv, TELNYX_API_KEY: 'KEY_both', TELNYX_BASE_URL: `${telnyx.url}/v2` };
    const telnyxFirst = setupApi({ ...both, SMS_PROVIDERS: 'telnyx,twilio' });
    const twilioFirst = setupApi({ ...both, SMS_PROVIDERS: 'twilio,telnyx' });
    try {
      const viaTelnyx = await telnyxFirst.org();
      const viaTwilio = await twilioFirst.org();
      const first = await searchOneNumber(viaTelnyx.api, 'country=US&areaCode=305&limit=1');
      expect((await viaTelnyx.api.post('/v1/phone-numbers', { number: first })).body.provider).toBe('telnyx');
      const second = await searchOneNumber(viaTwilio.api, 'country=US&areaCode=512&limit=1');
      const bought = (await viaTwilio.api.post('/v1/phone-numbers', { number: second })).body;
      expect(bought.provider).toBe('twilio');
      expect(twilio.requests.filter((r) => r.method === 'POST').length).toBe(1);

      // Telnyx first now, but the Twilio number goes back to Twilio
      expect((await apiClient(telnyxFirst.app, viaTwilio.key).delete(`/v1/phone-numbers/${bought.id}`)).status).toBe(204);
      expect(requestsTo('DELETE', '/IncomingPhoneNumbers/')).toHaveLength(1);
      expect(telnyx.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    } finally {
      await telnyxFirst.close();
      await twilioFirst.close();
    }
  });
});
