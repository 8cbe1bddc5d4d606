import { setupApi } from './setup.ts';

// No RESEND_API_KEY: domains are provisioned by the sandbox, which gives the records a real provider would.
const t = setupApi();
afterAll(() => t.close());

describe('emailDomain.add (sandbox)', () => {
  it('201 pending with fully qualified SPF, DKIM, DMARC and return-path records; the name is lower-cased', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/email-domains', { name: 'Mail.Example.COM.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'mail.example.com', status: 'pending', provider: 'sandbox', defaultSender: null, verifiedAt: null });
    expect(res.body.id).toMatch(/^dom_/);
    const byPurpose = Object.fromEntries(res.body.records.map((r: { purpose: string }) => [r.purpose, r]));
    expect(byPurpose.returnPath).toEqual({
      purpose: 'returnPath',
      type: 'MX',
      name: 'send.mail.example.com',
      value: 'feedback-smtp.sandbox.tidings.test',
      priority: 10,
      required: true,
      status: 'pending',
    });
    expect(byPurpose.spf).toMatchObject({ type: 'TXT', name: 'send.mail.example.com', value: 'v=spf1 include:spf.sandbox.tidings.test ~all', required: true });
    expect(byPurpose.dkim).toMatchObject({ type: 'TXT', name: 'tidings._domainkey.mail.example.com', required: true });
    expect(byPurpose.dkim.value).toMatch(/^p=[A-Za-z0-9+/]{200,}={0,2}$/);
    expect(byPurpose.dmarc).toMatchObject({ type: 'TXT', name: '_dmarc.mail.example.com', value: 'v=DMARC1; p=none;', required: false });
  });

  it('rejects names that are not registrable domains, naming the field, and stores nothing', async () => {
    const { api } = await t.org();
    for (const name of ['https://example.com', 'example.com/path', 'user@example.com', 'example', 'co.uk', '127.0.0.1', 'exa mple.com', '-bad.com', '']) {
      const res = await api.post('/v1/email-domains', { name });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toMatch(/^name/);
    }
    expect((await api.post('/v1/email-domains', { name: 'ok.com', region: 'eu' })).status).toBe(400);
    expect((await api.get('/v1/email-domains')).body.data).toEqual([]);
  });

  it('409 when the organization already has the domain (any case); another organization may add it', async () => {
    const a = await t.org();
    const b = await t.org();
    expect((await a.api.post('/v1/email-domains', { name: 'dupe.example.org' })).status).toBe(201);
    const again = await a.api.post('/v1/email-domains', { name: 'DUPE.example.org' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ code: 'CONFLICT', message: 'Email domain dupe.example.org is already added to this organization' });
    expect((await b.api.post('/v1/email-domains', { name: 'dupe.example.org' })).status).toBe(201);
    expect((await a.api.get('/v1/email-domains')).body.data).toHaveLength(1);
  });
});

describe('emailDomain.add at once', () => {
  it('two adds of the same name at once: one 201, one 409, one row', async () => {
    const { api, orgId } = await t.org();
    const results = await Promise.all([api.post('/v1/email-domains', { name: 'race.example.com' }), api.post('/v1/email-domains', { name: 'race.example.com' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.deps.db.emailDomain.count({ where: { orgId, name: 'race.example.com' } })).toBe(1);
  });
});

describe('emailDomain.list and get', () => {
  it('lists newest first with pagination and gets one', async () => {
    const { api } = await t.org();
    const ids: string[] = [];
    for (const name of ['one.example.net', 'two.example.net', 'three.example.net']) ids.push((await api.post('/v1/email-domains', { name })).body.id);
    const page = await api.get('/v1/email-domains?limit=2');
    expect(page.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.hasMore).toBe(true);
    const next = await api.get(`/v1/email-domains?limit=2&cursor=${page.body.nextCursor}`);
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    const one = await api.get(`/v1/email-domains/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.name).toBe('one.example.net');
  });
});

describe('emailDomain.setDefault', () => {
  it('sets the default sender when the address is on the domain; 400 otherwise, and nothing changes', async () => {
    const { api, orgId } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'acme.example.com' })).body;
    const set = await api.put(`/v1/email-domains/${domain.id}/default-sender`, { fromName: 'Acme', fromAddress: 'Hello@ACME.example.com', replyTo: 'help@elsewhere.org' });
    expect(set.status).toBe(200);
    expect(set.body.defaultSender).toEqual({ fromName: 'Acme', fromAddress: 'Hello@ACME.example.com', replyTo: 'help@elsewhere.org' });
    const row = await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect(row).toMatchObject({ orgId, defaultFromAddress: 'Hello@ACME.example.com', defaultFromName: 'Acme', defaultReplyTo: 'help@elsewhere.org' });

    for (const [body, field] of [
      [{ fromName: 'Acme', fromAddress: 'hello@other.com' }, 'fromAddress: must be an address on acme.example.com'],
      [{ fromName: 'Acme', fromAddress: 'hello@sub.acme.example.com' }, 'fromAddress: must be an address on acme.example.com'],
      [{ fromName: 'Acme', fromAddress: 'not-an-address' }, 'fromAddress'],
      [{ fromAddress: 'hello@acme.example.com' }, 'fromName'],
      [{ fromName: 'Acme', fromAddress: 'hello@acme.example.com', replyTo: 'nope' }, 'replyTo'],
      [{ fromName: 'Acme', fromAddress: 'hello@acme.example.com', bcc: 'x@y.com' }, 'bcc'],
    ] as const) {
      const res = await api.put(`/v1/email-domains/${domain.id}/default-sender`, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect((await api.get(`/v1/email-domains/${domain.id}`)).body.defaultSender.fromAddress).toBe('Hello@ACME.example.com');
  });
});

describe('emailDomain.delete', () => {
  it('204, then not found and not listed; it can be added again', async () => {
    const { api } = await t.org();
    const domain = (await api.post('/v1/email-domains', { name: 'gone.example.com' })).body;
    expect((await api.delete(`/v1/email-domains/${domain.id}`)).status).toBe(204);
    const get = await api.get(`/v1/email-domains/${domain.id}`);
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ code: 'NOT_FOUND', message: 'Email domain not found' });
    expect((await api.get('/v1/email-domains')).body.data).toEqual([]);
    expect(await t.deps.db.emailDomain.count({ where: { id: domain.id } })).toBe(0);
    expect((await api.delete(`/v1/email-domains/${domain.id}`)).status).toBe(404);
    expect((await api.post('/v1/email-domains', { name: 'gone.example.com' })).status).toBe(201);
  });
});

describe('email domains across organizations', () => {
  it("another organization's domain id is 404 for get, verify, setDefault and delete, and nothing changes", async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const domain = (await owner.api.post('/v1/email-domains', { name: 'private.example.com' })).body;
    const attempts = [
      stranger.api.get(`/v1/email-domains/${domain.id}`),
      stranger.api.post(`/v1/email-domains/${domain.id}/verify`),
      stranger.api.put(`/v1/email-domains/${domain.id}/default-sender`, { fromName: 'X', fromAddress: 'x@private.example.com' }),
      stranger.api.delete(`/v1/email-domains/${domain.id}`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Email domain not found' });
    }
    expect((await stranger.api.get('/v1/email-domains')).body.data).toEqual([]);
    expect((await owner.api.get(`/v1/email-domains/${domain.id}`)).body).toEqual(domain);
  });
});

describe('OpenAPI document', () => {
  it('carries the seven emailDomain and six phoneNumber operations', async () => {
    const doc = (await t.anonymous.get('/v1/openapi.json')).body;
    const operationIds = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    const ours = operationIds.filter((id) => id.startsWith('emailDomain.') || id.startsWith('phoneNumber.')).sort();
    expect(ours).toEqual([
      'emailDomain.add',
      'emailDomain.delete',
      'emailDomain.get',
      'emailDomain.list',
      'emailDomain.setDefault',
      'emailDomain.update',
      'emailDomain.verify',
      'phoneNumber.get',
      'phoneNumber.list',
      'phoneNumber.purchase',
      'phoneNumber.release',
      'phoneNumber.searchAvailable',
      'phoneNumber.update',
    ]);
    expect(doc.paths['/phone-numbers'].post.responses['503']).toBeDefined();
  });
});
