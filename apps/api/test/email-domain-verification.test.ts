import { recheckPendingDomains } from '@tidings/core';
import { startFakeDns, type FakeDns, type ZoneRecord } from '@tidings/testing';
import { setupApi } from './setup.ts';

// A real DNS server on 127.0.0.1 answers the resolver that DNS_SERVERS points verification at.
type Record = { purpose: string; type: 'TXT' | 'MX' | 'CNAME'; name: string; value: string; priority?: number; status: string };
let dns: FakeDns;
let t: ReturnType<typeof setupApi>;

beforeAll(async () => {
  dns = await startFakeDns();
  t = setupApi({ DNS_SERVERS: dns.address });
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

/** The zone an owner published for these records, leaving out `missing` and changing the value of `wrong`. */
function zoneFor(records: Record[], options: { missing?: string[]; wrong?: string[] } = {}): ZoneRecord[] {
  return records
    .filter((r) => !options.missing?.includes(r.purpose))
    .map((r) => ({ name: r.name, type: r.type, value: options.wrong?.includes(r.purpose) ? wrongValue(r) : r.value, priority: r.priority }));
}
function wrongValue(record: Record): string {
  return record.purpose === 'spf' ? 'v=spf1 include:mail.elsewhere.example ~all' : `${record.value.slice(0, -4)}ABCD`;
}
const statuses = (records: Record[]) => Object.fromEntries(records.map((r) => [r.purpose, r.status]));
const eventsOf = (orgId: string, type: string) => t.deps.db.event.findMany({ where: { orgId, type } });

async function addDomain(name: string) {
  const org = await t.org();
  const domain = (await org.api.post('/v1/email-domains', { name })).body;
  return { ...org, domain: domain as { id: string; records: Record[] } };
}

describe('emailDomain.verify against DNS', () => {
  it('verified when every required record is published; the event is recorded once', async () => {
    const { api, orgId, domain } = await addDomain('verified.example.com');
    dns.setRecords(zoneFor(domain.records));
    const res = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('verified');
    expect(statuses(res.body.records)).toEqual({ returnPath: 'verified', spf: 'verified', dkim: 'verified', dmarc: 'verified' });
    expect(res.body.verifiedAt).not.toBeNull();
    expect(res.body.lastCheckedAt).not.toBeNull();
    expect((await api.post(`/v1/email-domains/${domain.id}/verify`)).body.status).toBe('verified');
    const events = await eventsOf(orgId, 'emailDomain.verified');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: domain.id, status: 'verified' });
    expect((await api.get(`/v1/email-domains/${domain.id}`)).body.status).toBe('verified');
  });

  it('stays pending with per-record statuses: missing is pending, a wrong value is failed', async () => {
    const { api, orgId, domain } = await addDomain('partial.example.com');
    dns.setRecords(zoneFor(domain.records, { missing: ['dkim'], wrong: ['spf'] }));
    const res = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(res.body.status).toBe('pending');
    expect(statuses(res.body.records)).toEqual({ returnPath: 'verified', spf: 'failed', dkim: 'pending', dmarc: 'verified' });
    expect(await eventsOf(orgId, 'emailDomain.verified')).toHaveLength(0);
  });

  it('a DKIM key published as several TXT strings still matches; DMARC is not required', async () => {
    const { api, domain } = await addDomain('chunked.example.com');
    const dkim = domain.records.find((r) => r.purpose === 'dkim')!;
    dns.setRecords([...zoneFor(domain.records, { missing: ['dmarc', 'dkim'] }), { name: dkim.name, type: 'TXT', value: dkim.value, chunkSize: 64 }]);
    const res = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(statuses(res.body.records)).toEqual({ returnPath: 'verified', spf: 'verified', dkim: 'verified', dmarc: 'pending' });
    expect(res.body.status).toBe('verified');
  });

  it('an SPF record that includes ours among other mechanisms matches; one without our include fails', async () => {
    const { api, domain } = await addDomain('spf.example.com');
    const spf = domain.records.find((r) => r.purpose === 'spf')!;
    const others = zoneFor(domain.records, { missing: ['spf'] });
    dns.setRecords([...others, { name: spf.name, type: 'TXT', value: 'v=spf1 include:_spf.google.com include:spf.sandbox.tidings.test -all' }]);
    expect(statuses((await api.post(`/v1/email-domains/${domain.id}/verify`)).body.records).spf).toBe('verified');
    dns.setRecords([...others, { name: spf.name, type: 'TXT', value: 'v=spf1 include:_spf.google.com -all' }]);
    const res = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(statuses(res.body.records).spf).toBe('failed');
    expect(res.body.status).toBe('failed'); // it had been verified: its mail would now fail SPF
  });

  it('when DNS cannot answer, the statuses stay as they were', async () => {
    const { api, domain } = await addDomain('servfail.example.com');
    dns.setRecords(zoneFor(domain.records, { missing: ['dkim'] }));
    const before = (await api.post(`/v1/email-domains/${domain.id}/verify`)).body;
    dns.setFailing(true);
    try {
      const during = await api.post(`/v1/email-domains/${domain.id}/verify`);
      expect(during.status).toBe(200);
      expect(during.body.status).toBe('pending');
      expect(statuses(during.body.records)).toEqual(statuses(before.records));
    } finally {
      dns.setFailing(false);
    }
  });

  it('failed 72 hours after it was added, with an emailDomain.failed event; it can still be verified later', async () => {
    const { api, orgId, domain } = await addDomain('late.example.com');
    await t.deps.db.emailDomain.update({ where: { id: domain.id }, data: { createdAt: new Date(Date.now() - 73 * 60 * 60 * 1000) } });
    dns.setRecords(zoneFor(domain.records, { missing: ['returnPath'] }));
    const failed = await api.post(`/v1/email-domains/${domain.id}/verify`);
    expect(failed.body.status).toBe('failed');
    expect(await eventsOf(orgId, 'emailDomain.failed')).toHaveLength(1);
    dns.setRecords(zoneFor(domain.records));
    expect((await api.post(`/v1/email-domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect(await eventsOf(orgId, 'emailDomain.verified')).toHaveLength(1);
  });
});

describe('recheckPendingDomains', () => {
  it('checks pending domains once per interval: verifies the published, fails the expired, leaves the rest', async () => {
    const ready = await addDomain('ready.example.com');
    const waiting = await addDomain('waiting.example.com');
    const expired = await addDomain('expired.example.com');
    await t.deps.db.emailDomain.update({ where: { id: expired.domain.id }, data: { createdAt: new Date(Date.now() - 80 * 60 * 60 * 1000) } });
    dns.setRecords(zoneFor(ready.domain.records));

    const result = await recheckPendingDomains(t.deps, { batchSize: 1000 });
    expect(result.checked).toBeGreaterThanOrEqual(3);
    expect(result.verified).toBeGreaterThanOrEqual(1);
    expect(result.failed).toBeGreaterThanOrEqual(1);
    const status = async (id: string) => (await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id } })).status;
    expect(await status(ready.domain.id)).toBe('verified');
    expect(await status(waiting.domain.id)).toBe('pending');
    expect(await status(expired.domain.id)).toBe('failed');
    expect(await eventsOf(ready.orgId, 'emailDomain.verified')).toHaveLength(1);
    expect(await eventsOf(expired.orgId, 'emailDomain.failed')).toHaveLength(1);

    // just checked: the next run leaves it alone until the interval has passed
    const checkedAt = (await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: waiting.domain.id } })).lastCheckedAt;
    await recheckPendingDomains(t.deps, { batchSize: 1000 });
    expect((await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: waiting.domain.id } })).lastCheckedAt).toEqual(checkedAt);
    await recheckPendingDomains(t.deps, { batchSize: 1000, minIntervalMs: 0 });
    expect((await t.deps.db.emailDomain.findUniqueOrThrow({ where: { id: waiting.domain.id } })).lastCheckedAt!.getTime()).toBeGreaterThan(checkedAt!.getTime());
  });
});
