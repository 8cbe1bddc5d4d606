import { startFakeDns, type FakeDns } from '@tidings/testing';
import { Tidings } from '../src/index.ts';
import { recordingFetch, startApi, caught } from './setup.ts';

// A real DNS server on 127.0.0.1 answers verification (DNS_SERVERS); no RESEND_API_KEY, so the sandbox provisions.
let dns: FakeDns;
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  dns = await startFakeDns();
  api = await startApi({ DNS_SERVERS: dns.address });
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

describe('tidings.emailDomains against the running API', () => {
  it('adds a domain, verifies it once DNS has the records, sets the default sender, gets and deletes it', async () => {
    const { tidings } = await api.org();
    const added = await tidings.emailDomains.add({ name: 'sdk.example.com' });
    expect(added).toMatchObject({ name: 'sdk.example.com', status: 'pending', provider: 'sandbox', defaultSender: null, verifiedAt: null });
    expect(added.id).toMatch(/^dom_/);
    expect(added.records.map((r) => r.purpose).sort()).toEqual(['dkim', 'dmarc', 'returnPath', 'spf']);
    expect(added.records.every((r) => r.status === 'pending')).toBe(true);

    const unpublished = await tidings.emailDomains.verify(added.id);
    expect(unpublished.status).toBe('pending');

    dns.setRecords(added.records.map((r) => ({ name: r.name, type: r.type, value: r.value, priority: r.priority })));
    const verified = await tidings.emailDomains.verify(added.id);
    expect(verified).toMatchObject({ status: 'verified', verifiedAt: expect.any(String) });
    expect(verified.records.every((r) => r.status === 'verified')).toBe(true);

    const withSender = await tidings.emailDomains.setDefault(added.id, { fromName: 'Acme', fromAddress: 'hello@sdk.example.com' });
    expect(withSender.defaultSender).toEqual({ fromName: 'Acme', fromAddress: 'hello@sdk.example.com', replyTo: null });
    expect(await tidings.emailDomains.get(added.id)).toMatchObject({ id: added.id, status: 'verified', defaultSender: { fromAddress: 'hello@sdk.example.com' } });

    await expect(tidings.emailDomains.delete(added.id)).resolves.toBeUndefined();
    expect(await caught(tidings.emailDomains.get(added.id))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('lists every domain with for await, page by page, newest first', async () => {
    const { key } = await api.org();
    const wire = recordingFetch();
    const tidings = new Tidings({ apiKey: key, baseUrl: api.baseUrl, fetch: api.validating(wire.fetch) });
    const ids: string[] = [];
    for (const name of ['a.example.net', 'b.example.net', 'c.example.net', 'd.example.net', 'e.example.net']) ids.push((await tidings.emailDomains.add({ name })).id);
    wire.exchanges.length = 0;
    const seen: string[] = [];
    for await (const domain of tidings.emailDomains.list({ limit: 2 })) seen.push(domain.id);
    expect(seen).toEqual([...ids].reverse());
    expect(wire.exchanges).toHaveLength(3);
  });

  it('typed errors: 404 for another organization’s domain (left untouched), 409 for a duplicate, 400 naming the field', async () => {
    const owner = await api.org();
    const stranger = await api.org();
    const domain = await owner.tidings.emailDomains.add({ name: 'mine.example.org' });
    const foreign = await caught(stranger.tidings.emailDomains.setDefault(domain.id, { fromName: 'X', fromAddress: 'x@mine.example.org' }));
    expect(foreign).toMatchObject({ code: 'NOT_FOUND', status: 404, requestId: expect.any(String) });
    expect(await caught(stranger.tidings.emailDomains.delete(domain.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await owner.tidings.emailDomains.get(domain.id)).toMatchObject({ defaultSender: null });

    const dupe = await caught(owner.tidings.emailDomains.add({ name: 'MINE.example.org' }));
    expect(dupe).toMatchObject({ code: 'CONFLICT', status: 409 });
    const invalid = await caught(owner.tidings.emailDomains.add({ name: 'https://example.com' }));
    expect(invalid).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(invalid.message).toMatch(/^name/);
    expect(await owner.tidings.emailDomains.list().toArray()).toHaveLength(1);
  });
});
