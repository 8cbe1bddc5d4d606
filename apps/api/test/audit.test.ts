import { applyRetention } from '@tidings/core';
import { startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { searchOneNumber, setupApi } from './setup.ts';

// behind a proxy: the audit rows carry the X-Forwarded-For address, as the rate limits use it
const t = setupApi({ WEBHOOK_ALLOW_LOOPBACK: 'true', TRUST_PROXY: 'true', RATE_LIMIT_PER_MINUTE: '1000' });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

type Org = Awaited<ReturnType<typeof t.org>>;
type Row = { id: string; action: string; actor: { type: string; id: string | null }; targetId: string | null; ip: string | null; createdAt: string };
const FROM = { 'x-forwarded-for': '198.51.100.23' };

/** Every audit event of the organization, oldest first. */
async function auditOf(org: Org, query = ''): Promise<Row[]> {
  const res = await org.api.get(`/v1/audit-events?limit=100${query}`);
  expect(res.status).toBe(200);
  return (res.body.data as Row[]).reverse();
}

describe('audit.list: a row for each change', () => {
  it('keys, webhooks, domains, numbers and suppressions, each with the key as actor and the client address', async () => {
    const org = await t.org();
    const post = (path: string, body?: unknown) => org.api.post(path, body, FROM);
    const key = (await post('/v1/api-keys', { name: 'CI', permission: 'full' })).body;
    expect((await post(`/v1/api-keys/${key.id}/rotate`)).status).toBe(200);
    expect((await post(`/v1/api-keys/${key.id}/disable`)).status).toBe(200);
    expect((await post(`/v1/api-keys/${key.id}/enable`)).status).toBe(200);
    expect((await org.api.delete(`/v1/api-keys/${key.id}`, FROM)).status).toBe(204);

    const hook = (await post('/v1/webhooks', { url: `${receiver.url}/hook`, events: ['message.delivered'] })).body;
    expect((await org.api.patch(`/v1/webhooks/${hook.id}`, { description: 'CRM' }, FROM)).status).toBe(200);
    const rotated = await post(`/v1/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await post(`/v1/webhooks/${hook.id}/replay`, { since: '2026-01-01T00:00:00Z' })).status).toBe(202);
    expect((await org.api.delete(`/v1/webhooks/${hook.id}`, FROM)).status).toBe(200);

    const domain = (await post('/v1/email-domains', { name: 'audit.example.com' })).body;
    expect((await org.api.put(`/v1/email-domains/${domain.id}/default-sender`, { fromName: 'A', fromAddress: 'a@audit.example.com' }, FROM)).status).toBe(200);
    expect((await org.api.patch(`/v1/email-domains/${domain.id}`, { clickTracking: true }, FROM)).status).toBe(200);
    expect((await org.api.delete(`/v1/email-domains/${domain.id}`, FROM)).status).toBe(204);

    const number = (await post('/v1/phone-numbers', { number: await searchOneNumber(org.api) })).body;
    expect((await org.api.patch(`/v1/phone-numbers/${number.id}`, { friendlyName: 'Support' }, FROM)).status).toBe(200);
    expect((await org.api.delete(`/v1/phone-numbers/${number.id}`, FROM)).status).toBe(204);

    const suppression = (await post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' })).body;
    expect((await org.api.delete(`/v1/suppressions/${suppression.id}`, FROM)).status).toBe(204);

    const rows = await auditOf(org);
    expect(rows.map((r) => [r.action, r.targetId])).toEqual([
      ['apiKey.created', key.id],
      ['apiKey.rotated', key.id],
      ['apiKey.disabled', key.id],
      ['apiKey.enabled', key.id],
      ['apiKey.deleted', key.id],
      ['webhook.created', hook.id],
      ['webhook.updated', hook.id],
      ['webhook.secretRotated', hook.id],
      ['webhook.replayed', hook.id],
      ['webhook.deleted', hook.id],
      ['emailDomain.added', domain.id],
      ['emailDomain.defaultSenderSet', domain.id],
      ['emailDomain.updated', domain.id],
      ['emailDomain.deleted', domain.id],
      ['phoneNumber.purchased', number.id],
      ['phoneNumber.updated', number.id],
      ['phoneNumber.released', number.id],
      ['suppression.created', suppression.id],
      ['suppression.deleted', suppression.id],
    ]);
    for (const row of rows) {
      expect(row.actor).toEqual({ type: 'apiKey', id: org.keyId });
      expect(row.ip).toBe('198.51.100.23');
      expect(row.id).toMatch(/^aud_/);
    }
    // ids only: neither the key's nor the webhook's secret is in any row
    const stored = JSON.stringify(await t.deps.db.auditEvent.findMany({ where: { orgId: org.orgId } }));
    expect(stored).not.toContain(key.key);
    expect(stored).not.toContain(hook.secret);
    expect(stored).not.toContain(rotated.body.secret);
  });

  it('topics: created, updated, deleted; an update of a topic that is not there leaves no row', async () => {
    const org = await t.org();
    const topic = (await org.api.post('/v1/topics', { name: 'Product news', defaultSubscription: 'opt_in' }, FROM)).body;
    expect((await org.api.patch(`/v1/topics/${topic.id}`, { visibility: 'private' }, FROM)).status).toBe(200);
    expect((await org.api.patch('/v1/topics/top_00000000000000000000000000', { visibility: 'private' }, FROM)).status).toBe(404);
    expect((await org.api.delete(`/v1/topics/${topic.id}`, FROM)).status).toBe(204);
    expect((await auditOf(org)).map((r) => [r.action, r.targetId, r.actor.id])).toEqual([
      ['topic.created', topic.id, org.keyId],
      ['topic.updated', topic.id, org.keyId],
      ['topic.deleted', topic.id, org.keyId],
    ]);
  });

  it('broadcasts: created, sent, retried, canceled, deleted', async () => {
    const org = await t.org({ mode: 'test' });
    const template = (await org.api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'Hi', text: 'Hello' })).body;
    const body = { name: 'November', channelType: 'email', templateId: template.id };
    const sent = (await org.api.post('/v1/broadcasts', body)).body;
    expect((await org.api.post(`/v1/broadcasts/${sent.id}/send`, {})).status).toBe(202);
    expect((await org.api.post(`/v1/broadcasts/${sent.id}/retry-failed`)).status).toBe(202);
    expect((await org.api.post(`/v1/broadcasts/${sent.id}/cancel`)).status).toBe(200);
    const draft = (await org.api.post('/v1/broadcasts', body)).body;
    expect((await org.api.delete(`/v1/broadcasts/${draft.id}`)).status).toBe(204);
    expect((await auditOf(org)).map((r) => [r.action, r.targetId])).toEqual([
      ['broadcast.created', sent.id],
      ['broadcast.sent', sent.id],
      ['broadcast.retriedFailed', sent.id],
      ['broadcast.canceled', sent.id],
      ['broadcast.created', draft.id],
      ['broadcast.deleted', draft.id],
    ]);
  });
});

describe('audit.list: what is not written and not seen', () => {
  it('a failing change leaves no row', async () => {
    const org = await t.org();
    const hook = (await org.api.post('/v1/webhooks', { url: `${receiver.url}/hook`, events: ['message.delivered'] })).body;
    const failures = await Promise.all([
      org.api.post('/v1/suppressions', { channelType: 'email', address: 'not an address' }),
      org.api.post('/v1/api-keys/key_00000000000000000000000000/rotate'),
      org.api.patch(`/v1/webhooks/${hook.id}`, { url: 'http://10.0.0.1/private' }),
      org.api.delete('/v1/email-domains/dom_00000000000000000000000000'),
      org.api.post(`/v1/webhooks/${hook.id}/replay`, { since: '2030-01-01T00:00:00Z', until: '2029-01-01T00:00:00Z' }),
    ]);
    for (const res of failures) expect(res.status).toBeGreaterThanOrEqual(400);
    await org.api.post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' });
    // the second is refused inside its transaction (already suppressed): no row for it
    expect((await org.api.post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' })).status).toBe(409);
    expect((await auditOf(org)).map((r) => r.action)).toEqual(['webhook.created', 'suppression.created']);
  });

  it("another organization's rows are never listed, whatever the filter", async () => {
    const [a, b] = await Promise.all([t.org(), t.org()]);
    await a.api.post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' });
    expect(await auditOf(b)).toEqual([]);
    expect(await auditOf(b, `&actorId=${a.keyId}`)).toEqual([]);
    expect(await auditOf(b, '&action=suppression.created')).toEqual([]);
    expect(await auditOf(a)).toHaveLength(1);
  });

  it('a sending key is refused (403)', async () => {
    const org = await t.org();
    const sending = (await org.api.post('/v1/api-keys', { name: 'app', permission: 'sending' })).body;
    const res = await t.client(sending.key).get('/v1/audit-events');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it("a test key sees only the changes test keys made, never a live key's", async () => {
    const org = await t.org();
    const test = (await org.api.post('/v1/api-keys', { name: 'sandbox', mode: 'test' })).body;
    const asTest = t.client(test.key);
    await asTest.post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' });
    const seenByTest = (await asTest.get('/v1/audit-events')).body.data as Row[];
    expect(seenByTest.map((r) => [r.action, r.actor.id])).toEqual([['suppression.created', test.id]]);
    expect((await auditOf(org)).map((r) => r.action)).toEqual(['apiKey.created', 'suppression.created']);
  });
});

describe('audit.list: filters, pages, retention', () => {
  it('filters by action, actor and since, and pages by cursor without repeats', async () => {
    const org = await t.org();
    const other = (await org.api.post('/v1/api-keys', { name: 'second' })).body;
    for (const address of ['a@example.com', 'b@example.com', 'c@example.com']) await org.api.post('/v1/suppressions', { channelType: 'email', address });
    await t.client(other.key).post('/v1/suppressions', { channelType: 'email', address: 'd@example.com' });

    expect((await auditOf(org, '&action=suppression.created')).length).toBe(4);
    expect((await auditOf(org, `&actorId=${other.id}`)).map((r) => r.action)).toEqual(['suppression.created']);
    const all = await auditOf(org);
    expect(all).toHaveLength(5);
    expect(await auditOf(org, `&since=${encodeURIComponent(all[4]!.createdAt)}`)).toContainEqual(all[4]);
    expect(await auditOf(org, '&since=2999-01-01T00:00:00Z')).toEqual([]);
    expect((await org.api.get('/v1/audit-events?action=apiKey.exploded')).status).toBe(400);

    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await org.api.get(`/v1/audit-events?limit=2${cursor}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((r: Row) => r.id));
      if (!page.body.hasMore) break;
      cursor = `&cursor=${page.body.nextCursor}`;
    }
    expect(seen).toEqual(all.map((r) => r.id).reverse());
  });

  it('retention removes rows older than AUDIT_RETENTION_DAYS and keeps the rest', async () => {
    const org = await t.org();
    await org.api.post('/v1/suppressions', { channelType: 'email', address: 'old@example.com' });
    await org.api.post('/v1/suppressions', { channelType: 'email', address: 'new@example.com' });
    const [old] = await auditOf(org);
    await t.deps.db.auditEvent.update({ where: { id: old!.id }, data: { createdAt: new Date(Date.now() - 400 * 86_400_000) } });
    const report = await applyRetention(t.deps, { messageDays: 0, webhookAttemptDays: 0, auditDays: 365 });
    expect(report.AuditEvent?.deleted).toBeGreaterThanOrEqual(1);
    const left = await auditOf(org);
    expect(left).toHaveLength(1);
    expect(left[0]!.id).not.toBe(old!.id);
  });
});
