import { startFakeDns, startFakeResend, type FakeDns, type FakeServer } from '@tidings/testing';
import { setupApi } from './setup.ts';

// RESEND_API_KEY is set: live keys provision through the real resend SDK against the loopback fake.
const RESEND_KEY = 're_live_secret_0123456789';
let resend: FakeServer;
let dns: FakeDns;
let t: ReturnType<typeof setupApi>;

beforeAll(async () => {
  resend = await startFakeResend();
  dns = await startFakeDns();
  t = setupApi({ RESEND_API_KEY: RESEND_KEY, RESEND_BASE_URL: resend.url, DNS_SERVERS: dns.address });
});
afterAll(async () => {
  await t.close();
  await resend.close();
  await dns.close();
});
beforeEach(() => resend.reset());

const requestsTo = (method: string, prefix: string) => resend.requests.filter((r) => r.method === method && r.path.startsWith(prefix));

describe('email domains through Resend', () => {
  it("add provisions at Resend and stores Resend's records fully qualified, plus DMARC", async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/email-domains', { name: 'news.example.co.uk' });
    expect(res.status).toBe(201);
    expect(res.body.provider).toBe('resend');
    const [create] = requestsTo('POST', '/domains');
    expect(create!.body).toMatchObject({ name: 'news.example.co.uk' });
    expect(create!.headers.authorization).toBe(`Bearer ${RESEND_KEY}`);
    const records = res.body.records.map((r: { purpose: string; type: string; name: string; value: string }) => [
      r.purpose,
      r.type,
      r.name,
      r.purpose === 'dkim' ? r.value.slice(0, 2) : r.value,
    ]);
    expect(records).toEqual([
      ['returnPath', 'MX', 'send.news.example.co.uk', 'feedback-smtp.us-east-1.amazonses.com'],
      ['spf', 'TXT', 'send.news.example.co.uk', 'v=spf1 include:amazonses.com ~all'],
      ['dkim', 'TXT', 'resend._domainkey.news.example.co.uk', 'p='],
      ['dmarc', 'TXT', '_dmarc.news.example.co.uk', 'v=DMARC1; p=none;'],
    ]);
    const row = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.providerDomainId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('once our DNS check passes, Resend is asked to verify too', async () => {
    const { api } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'checked.example.com' })).body;
    const row = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: domain.id } });
    dns.setRecords(
      domain.records.map((r: { name: string; type: 'TXT' | 'MX'; value: string; priority?: number }) => ({ name: r.name, type: r.type, value: r.value, priority: r.priority })),
    );
    const verified = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(verified.body.status).toBe('verified');
    expect(requestsTo('POST', '/domains/').map((r) => r.path)).toEqual([`/domains/${row.providerDomainId}/verify`]);
  });

  it('delete removes the domain at Resend too', async () => {
    const { api } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'bye.example.com' })).body;
    const row = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect((await api.delete(`/v1/email-domains/${domain.id}`)).status).toBe(204);
    expect(requestsTo('DELETE', '/domains/').map((r) => r.path)).toEqual([`/domains/${row.providerDomainId}`]);
    // a domain Resend already forgot is still deleted here
    const other = (await api.post('/v1/email-domains', { name: 'forgotten.example.com' })).body;
    const otherRow = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: other.id } });
    await fetch(`${resend.url}/domains/${otherRow.providerDomainId}`, { method: 'DELETE', headers: { authorization: 'Bearer x' } });
    expect((await api.delete(`/v1/email-domains/${other.id}`)).status).toBe(204);
  });

  it('a Resend outage is a retryable INTERNAL_SERVER_ERROR without its text, and nothing is stored or deleted', async () => {
    const { api } = await t.org();
    resend.failNext(1, { kind: 'status', status: 503, body: { statusCode: 503, name: 'internal_server_error', message: `down; key ${RESEND_KEY}` } }, '/domains');
    const add = await api.post('/v1/email-domains', { name: 'outage.example.com' });
    expect(add.status).toBe(503);
    expect(add.body.code).toBe('INTERNAL_SERVER_ERROR');
    expect(add.body.message).toBe('The email provider is unavailable right now; retry in a minute');
    expect((await api.get('/v1/email-domains')).body.data).toEqual([]);

    const domain = (await api.post('/v1/email-domains', { name: 'outage.example.com' })).body;
    resend.failNext(1, { kind: 'status', status: 500 }, '/domains/');
    const del = await api.delete(`/v1/email-domains/${domain.id}`);
    expect(del.status).toBe(503);
    expect((await api.get(`/v1/email-domains/${domain.id}`)).status).toBe(200);
  });

  it('a name Resend rejects is a 400 naming the field', async () => {
    const { api } = await t.org();
    resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Domain already registered' } }, '/domains');
    const res = await api.post('/v1/email-domains', { name: 'taken.example.com' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^name: the email provider does not accept taken\.example\.com/);
  });

  it('test keys provision in the sandbox and never reach Resend', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/email-domains', { name: 'sandboxed.example.com' });
    expect(res.body.provider).toBe('sandbox');
    expect((await api.delete(`/v1/email-domains/${res.body.id}`)).status).toBe(204);
    expect(resend.requests).toEqual([]);
  });

  it('a test key gets 403 naming why on any change to a Resend domain, and Resend hears nothing', async () => {
    const { api } = await t.org({ mode: 'live' });
    const domain = (await api.post('/v1/email-domains', { name: 'kept.example.com' })).body;
    const test = t.client((await api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    resend.reset();
    for (const res of [
      await test.delete(`/v1/email-domains/${domain.id}`),
      await test.post(`/v1/email-domains/${domain.id}/verify`),
      await test.put(`/v1/email-domains/${domain.id}/default-sender`, { fromName: 'Test', fromAddress: 'hi@kept.example.com' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'FORBIDDEN', message: expect.stringMatching(/^A test key may read but not change what live sends use .*domains/) });
    }
    expect(resend.requests).toEqual([]);
    expect((await api.get(`/v1/email-domains/${domain.id}`)).status).toBe(200);
  });
});
