import { apiClient, startFakeDns, startFakeSes, type FakeDns, type FakeSes } from '@tidings/testing';
import { setupApi } from './setup.ts';

// EMAIL_PROVIDERS=ses: live keys provision domains as SES email identities through @aws-sdk/client-sesv2 at the fake.
type Record = { purpose: string; type: 'TXT' | 'MX' | 'CNAME'; name: string; value: string; required: boolean };
let ses: FakeSes;
let dns: FakeDns;
let t: ReturnType<typeof setupApi>;

beforeAll(async () => {
  [ses, dns] = await Promise.all([startFakeSes(), startFakeDns()]);
  t = setupApi({
    EMAIL_PROVIDERS: 'ses',
    SES_REGION: 'us-east-1',
    SES_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE',
    SES_SECRET_ACCESS_KEY: 'fake-secret-access-key',
    SES_ENDPOINT: ses.url,
    DNS_SERVERS: dns.address,
  });
});
afterAll(async () => {
  await t.close();
  await ses.close();
  await dns.close();
});
beforeEach(() => ses.reset());

const identityRequests = (method: string) => ses.requests.filter((r) => r.method === method && r.path.startsWith('/v2/email/identities'));
const publish = (records: Record[]) => dns.setRecords(records.map((r) => ({ name: r.name, type: r.type, value: r.value })));

describe('email domains through SES', () => {
  it('add creates an SES identity with Easy DKIM and stores its three DKIM CNAMEs, plus DMARC', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/email-domains', { name: 'News.Example.com' });
    expect(res.status).toBe(201);
    expect(res.body.provider).toBe('ses');
    const [create] = identityRequests('POST');
    expect(create!.body).toEqual({ EmailIdentity: 'news.example.com' });
    expect(create!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE\//);
    const { tokens } = ses.state.identities.get('news.example.com')!;
    expect(res.body.records.map((r: Record) => [r.purpose, r.type, r.name, r.value, r.required])).toEqual([
      ...tokens.map((token) => ['dkim', 'CNAME', `${token}._domainkey.news.example.com`, `${token}.dkim.amazonses.com`, true]),
      ['dmarc', 'TXT', '_dmarc.news.example.com', 'v=DMARC1; p=none;', false],
    ]);
    const row = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.providerDomainId).toBe('news.example.com');
  });

  it('verify reads the identity: published records alone do not verify until SES says so; SES failing fails the domain', async () => {
    const { api, orgId } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'checked.example.com' })).body;
    publish(domain.records);
    const early = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(early.status).toBe(200);
    expect(early.body.status).toBe('pending');
    expect(early.body.records.filter((r: Record & { status: string }) => r.purpose === 'dkim').map((r: { status: string }) => r.status)).toEqual([
      'verified',
      'verified',
      'verified',
    ]);
    expect(identityRequests('GET').map((r) => r.path)).toEqual(['/v2/email/identities/checked.example.com']);

    ses.state.identities.get('checked.example.com')!.status = 'SUCCESS';
    const verified = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(verified.body.status).toBe('verified');
    expect(await t.deps.db.event.count({ where: { orgId, type: 'emailDomain.verified' } })).toBe(1);

    const other = (await api.post('/v1/email-domains', { name: 'lapsed.example.com' })).body;
    ses.state.identities.get('lapsed.example.com')!.status = 'FAILED';
    expect((await api.post(`/v1/email-domains/${other.id}/verify`)).body.status).toBe('failed');
  });

  it('delete deletes the identity at SES; one SES already forgot is still deleted here', async () => {
    const { api } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'bye.example.com' })).body;
    expect((await api.delete(`/v1/email-domains/${domain.id}`)).status).toBe(204);
    expect(identityRequests('DELETE').map((r) => r.path)).toEqual(['/v2/email/identities/bye.example.com']);
    expect(ses.state.identities.has('bye.example.com')).toBe(false);

    const other = (await api.post('/v1/email-domains', { name: 'forgotten.example.com' })).body;
    ses.state.identities.delete('forgotten.example.com');
    expect((await api.delete(`/v1/email-domains/${other.id}`)).status).toBe(204);
    expect((await api.get(`/v1/email-domains/${other.id}`)).status).toBe(404);
  });

  it('an SES outage is a retryable 503 and nothing is stored or deleted; an identity SES already has is a 400', async () => {
    const { api } = await t.org();
    ses.failNext(1, { kind: 'status', status: 503, headers: { 'x-amzn-errortype': 'ServiceUnavailableException' } }, '/v2/email/identities');
    const add = await api.post('/v1/email-domains', { name: 'outage.example.com' });
    expect(add.status).toBe(503);
    expect(add.body.message).toBe('The email provider is unavailable right now; retry in a minute');
    expect((await api.get('/v1/email-domains')).body.data).toEqual([]);

    const domain = (await api.post('/v1/email-domains', { name: 'outage.example.com' })).body;
    ses.failNext(1, { kind: 'status', status: 500, headers: { 'x-amzn-errortype': 'InternalFailure' } }, '/v2/email/identities/');
    expect((await api.delete(`/v1/email-domains/${domain.id}`)).status).toBe(503);
    expect((await api.get(`/v1/email-domains/${domain.id}`)).status).toBe(200);

    // registered at SES outside this organization
    const elsewhere = await t.org();
    const taken = await elsewhere.api.post('/v1/email-domains', { name: 'outage.example.com' });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toMatch(/^name: the email provider does not accept outage\.example\.com/);
  });

  it('a test key of the same organization cannot verify or delete an SES domain (403); SES hears nothing', async () => {
    const { api } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'guarded.example.com' })).body;
    const testKey = (await api.post('/v1/api-keys', { name: 'tests', mode: 'test' })).body.key as string;
    const asTest = apiClient(t.app, testKey);
    ses.reset();
    for (const res of [await asTest.post(`/v1/email-domains/${domain.id}/verify`), await asTest.delete(`/v1/email-domains/${domain.id}`)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'FORBIDDEN',
        message: 'A test key may read but not change what live sends use (contacts, templates, segments, domains and numbers); use a live key or the dashboard.',
      });
    }
    expect(ses.requests).toEqual([]);
    expect(ses.state.identities.has('guarded.example.com')).toBe(true);
  });

  it('test keys provision in the sandbox and never reach SES', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/email-domains', { name: 'sandboxed.example.com' });
    expect(res.body.provider).toBe('sandbox');
    expect((await api.post(`/v1/email-domains/${res.body.id}/verify`)).status).toBe(200);
    expect((await api.delete(`/v1/email-domains/${res.body.id}`)).status).toBe(204);
    expect(ses.requests).toEqual([]);
  });
});
