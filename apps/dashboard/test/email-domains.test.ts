// The Domains pages through HTTP (app.request) over real Postgres and Redis; verification asks a real DNS server on
// 127.0.0.1 (the one the API's verification tests use), and domains are provisioned at the sandbox provider.
import { addEmailDomain, getEmailDomain } from '@tidings/core';
import { createTestDeps, startFakeDns, type FakeDns } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

let dns: FakeDns;
let deps: ReturnType<typeof createTestDeps>;
let app: ReturnType<typeof createDashboard>;

beforeAll(async () => {
  dns = await startFakeDns();
  deps = createTestDeps({ DNS_SERVERS: dns.address });
  app = createDashboard(deps);
});
afterAll(async () => {
  await deps.close();
  await dns.close();
});

const owner = () => signedIn(app, deps, 'owner');
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

async function addDomain(browser: Awaited<ReturnType<typeof owner>>['browser'], name: string) {
  const res = await browser.post('/domains', { name });
  expect(res.status).toBe(303);
  expect(res.location).toMatch(/^\/domains\/dom_/);
  return res.location!.split('/')[2]!;
}

describe('domains pages', () => {
  it('add a domain: its page lists every DNS record to copy, with its status', async () => {
    const { browser, orgId } = await owner();
    const id = await addDomain(browser, 'Mail.Example.com');
    const page = await browser.get(`/domains/${id}`);
    expect(page.html).toContain('mail.example.com is added');
    const domain = await getEmailDomain(deps, orgId, id);
    expect(domain.records.length).toBeGreaterThanOrEqual(3);
    for (const [i, record] of domain.records.entries()) {
      expect(page.html).toContain(`id="record-${i}-name" readonly="" value="${escapeHtml(record.name)}"`);
      expect(page.html).toContain(`id="record-${i}-value" readonly="" value="${escapeHtml(record.value)}"`);
      expect(page.html).toContain(`data-copy="#record-${i}-value"`);
    }
    expect(page.html).toContain('<code>TXT</code>');
    expect(page.html).toContain('<span class="badge pending">pending</span>');
    expect((await browser.get('/domains')).html).toContain(`<a href="/domains/${id}">mail.example.com</a>`);
  });

  it('refuses a bad name or a domain added twice, with the reason on the form', async () => {
    const { browser, orgId } = await owner();
    const bad = await browser.post('/domains', { name: 'https://example.com/path' });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/<small id="name-help">[^<]+<\/small>/);
    await addDomain(browser, 'twice.example.com');
    const twice = await browser.post('/domains', { name: 'twice.example.com' });
    expect(twice.status).toBe(400);
    expect(twice.html).toContain('Email domain twice.example.com is already added to this organization');
    expect(await deps.db.emailDomain.count({ where: { orgId } })).toBe(1);
  });

  it('verify asks DNS now: pending while a record is missing, verified once all are published', async () => {
    const { browser, orgId } = await owner();
    const id = await addDomain(browser, 'verify.example.com');
    const { records } = await getEmailDomain(deps, orgId, id);
    const zone = records.map((r) => ({ name: r.name, type: r.type, value: r.value, priority: r.priority }));
    dns.setRecords(zone.filter((_, i) => records[i]!.purpose !== 'dkim'));
    expect((await browser.post(`/domains/${id}/verify`)).status).toBe(303);
    const partial = await browser.get(`/domains/${id}`);
    expect(partial.html).toContain('<p class="flash warning" role="status">verify.example.com is pending: 1 required record does not match yet.</p>');
    expect(partial.html).toMatch(/data-purpose="dkim">(?:(?!<\/tr>).)*badge pending/s);
    expect(partial.html).toMatch(/data-purpose="spf">(?:(?!<\/tr>).)*badge verified/s);

    dns.setRecords(zone);
    await browser.post(`/domains/${id}/verify`);
    const verified = await browser.get(`/domains/${id}`);
    expect(verified.html).toContain('<p class="flash" role="status">verify.example.com is verified: you can send from it.</p>');
    expect((await getEmailDomain(deps, orgId, id)).status).toBe('verified');
  });

  it('sets the default sender: an address on the domain only', async () => {
    const { browser, orgId } = await owner();
    const id = await addDomain(browser, 'sender.example.com');
    const elsewhere = await browser.post(`/domains/${id}/default-sender`, { fromName: 'Acme', fromAddress: 'hello@other.example.com', replyTo: '' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.html).toContain('Must be an address on sender.example.com.');
    const invalid = await browser.post(`/domains/${id}/default-sender`, { fromName: 'Acme', fromAddress: 'not an address', replyTo: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('aria-invalid="true"');

    const saved = await browser.post(`/domains/${id}/default-sender`, { fromName: 'Acme', fromAddress: 'hello@sender.example.com', replyTo: 'help@acme.test' });
    expect(saved.status).toBe(303);
    expect((await browser.get(`/domains/${id}`)).html).toContain('Messages without a from address now come from hello@sender.example.com.');
    expect((await getEmailDomain(deps, orgId, id)).defaultSender).toEqual({ fromName: 'Acme', fromAddress: 'hello@sender.example.com', replyTo: 'help@acme.test' });
  });

  it('delete asks first, then removes the domain', async () => {
    const { browser, orgId } = await owner();
    const id = await addDomain(browser, 'gone.example.com');
    const confirm = await browser.get(`/domains/${id}/delete`);
    expect(confirm.html).toContain('Delete gone.example.com');
    expect(await deps.db.emailDomain.count({ where: { orgId } })).toBe(1);
    expect((await browser.post(`/domains/${id}/delete`)).location).toBe('/domains');
    expect((await browser.get('/domains')).html).toContain('gone.example.com is deleted.');
    expect(await deps.db.emailDomain.count({ where: { orgId } })).toBe(0);
  });

  it('another organization’s domain is not found on every page and action, and nothing of it shows', async () => {
    const mine = await owner();
    const theirs = await owner();
    const foreign = await addEmailDomain(deps, theirs.orgId, 'live', { name: 'theirs.example.com' });
    for (const path of [`/domains/${foreign.id}`, `/domains/${foreign.id}/delete`]) {
      const res = await mine.browser.get(path);
      expect(res.status).toBe(404);
      expect(res.html).not.toContain('theirs.example.com');
    }
    for (const [action, form] of [
      ['verify', {}],
      ['default-sender', { fromName: 'X', fromAddress: 'x@theirs.example.com' }],
      ['delete', {}],
    ] as const) {
      expect((await mine.browser.post(`/domains/${foreign.id}/${action}`, form)).status).toBe(404);
    }
    expect((await mine.browser.get('/domains')).html).not.toContain('theirs.example.com');
    const after = await getEmailDomain(deps, theirs.orgId, foreign.id);
    expect(after).toMatchObject({ defaultSender: null, lastCheckedAt: null });
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const id = await addDomain(browser, 'roles.example.com');
    expect((await browser.send('POST', `/domains/${id}/delete`, {})).status).toBe(403);
    expect((await browser.send('POST', '/domains', { name: 'forged.example.com' })).status).toBe(403);

    const member = await signedIn(app, deps, 'member', orgId);
    const page = await member.browser.get(`/domains/${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('roles.example.com');
    expect(page.html).not.toContain('Verify DNS records now');
    expect((await member.browser.post('/domains', { name: 'member.example.com' })).status).toBe(403);
    for (const action of ['verify', 'delete', 'default-sender']) {
      expect((await member.browser.post(`/domains/${id}/${action}`, { fromName: 'M', fromAddress: 'm@roles.example.com' })).status).toBe(403);
    }
    expect(await deps.db.emailDomain.findMany({ where: { orgId } })).toEqual([expect.objectContaining({ id, lastCheckedAt: null, defaultFromAddress: null })]);
  });
});
