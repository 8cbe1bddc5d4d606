import { newId, unsubscribeToken } from '@tidings/core';
import { startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { prefixOf, queryString, sampleBody, sampleQuery, type OpenApiDocument } from './openapi-mutations.ts';
import { setupApi } from './setup.ts';

// A test key reads test data and shared configuration, and changes nothing a live send reads or writes: it walks
// every operation against a live organization's resources and must read nothing live and change nothing.
const t = setupApi({ WEBHOOK_ALLOW_LOOPBACK: 'true', RATE_LIMIT_PER_MINUTE: '1000000' });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** A live organization with one of everything, made by its live key, and a test key of the same organization. */
async function liveOrganization() {
  const { api: live, orgId, keyId } = await t.org({ mode: 'live' });
  const domain = await t.deps.db.emailDomain.create({
    data: {
      id: newId('dom'),
      orgId,
      name: 'live.example.com',
      status: 'verified',
      provider: 'sandbox',
      records: [],
      defaultFromAddress: 'news@live.example.com',
      defaultFromName: 'Live',
    },
  });
  const number = await t.deps.db.phoneNumber.create({
    data: { id: newId('pn'), orgId, number: `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`, type: 'local', provider: 'sandbox', isDefault: true },
  });
  const testKey = (await live.post('/v1/api-keys', { name: 'test', mode: 'test' })).body;
  const test = t.client(testKey.key);
  const contact = (await live.post('/v1/contacts', { email: 'ada@example.com', phone: '+14155550123', firstName: 'Ada' })).body;
  const unsubscribed = (await live.post('/v1/contacts', { email: 'gus@example.com', emailSubscribed: false })).body;
  const template = (await live.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'News for {{ month }}', text: 'The live text' })).body;
  const segment = (await live.post('/v1/segments', { name: 'Ada', criteria: { all: [{ field: 'firstName', op: 'eq', value: 'Ada' }] } })).body;
  const topic = (await live.post('/v1/topics', { name: 'Product news', defaultSubscription: 'opt_out' })).body;
  await live.patch(`/v1/contacts/${contact.id}`, { topics: [{ topicId: topic.id, subscribed: true }] });
  const broadcast = (
    await live.post('/v1/broadcasts', { name: 'Live news', channelType: 'email', templateId: template.id, segmentId: segment.id, topicId: topic.id, variables: { month: 'May' } })
  ).body;
  await live.post(`/v1/broadcasts/${broadcast.id}/send`, { scheduledAt: inAnHour() });
  const webhook = (await live.post('/v1/webhooks', { url: `${receiver.url}/live`, events: ['message.queued', 'message.sent', 'contact.created'] })).body;
  const message = (await live.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Code', text: 'Your live code is 424242' })).body;
  const verification = (await live.post('/v1/verifications', { channelType: 'email', to: 'ada@example.com' })).body;
  const delivery = (await live.get(`/v1/webhooks/${webhook.id}/events`)).body.data[0];
  const manual = (await live.post('/v1/suppressions', { channelType: 'email', address: 'manual@example.com' })).body;
  await t.deps.db.suppression.create({ data: { orgId, recipient: 'bounced@example.com', reason: 'bounced' } });
  await t.deps.db.suppression.create({ data: { orgId, recipient: '+14155550199', reason: 'stopped' } });
  const bounced = (await live.get('/v1/suppressions?reason=bounced')).body.data[0];
  expect({ broadcast, webhook, message, verification, delivery, manual, bounced }).toMatchObject({
    broadcast: { id: expect.any(String) },
    webhook: { id: expect.any(String) },
    message: { id: expect.any(String) },
    verification: { id: expect.any(String) },
    delivery: { id: expect.any(String) },
    manual: { id: expect.any(String) },
    bounced: { id: expect.any(String) },
  });
  return {
    orgId,
    domain,
    live,
    test,
    testKeyId: testKey.id,
    liveKeyId: keyId,
    contact,
    unsubscribed,
    template,
    segment,
    topic,
    broadcast,
    webhook,
    message,
    verification,
    delivery,
    manual,
    bounced,
    number,
  };
}
type Live = Awaited<ReturnType<typeof liveOrganization>>;

/** Everything a live send reads or writes, as the live key sees it (and the stored webhook secret). */
async function liveState(o: Live) {
  const get = async (path: string) => (await o.live.get(path)).body;
  const webhook = await get(`/v1/webhooks/${o.webhook.id}`);
  return {
    contacts: await get('/v1/contacts?limit=100'),
    template: await get(`/v1/templates/${o.template.id}`),
    versions: await get(`/v1/templates/${o.template.id}/versions`),
    segment: await get(`/v1/segments/${o.segment.id}`),
    topics: await get('/v1/topics'),
    broadcasts: await get('/v1/broadcasts'),
    messages: await get('/v1/messages'),
    verifications: await get('/v1/verifications'),
    organization: await get('/v1/organization'),
    webhook: { ...webhook, recentEvents: webhook.recentEvents.map((d: { id: string; status: string }) => [d.id, d.status]) },
    secret: (await t.deps.db.webhook.findUniqueOrThrow({ where: { id: o.webhook.id } })).secretCiphertext,
    suppressions: await get('/v1/suppressions?limit=100'),
    domains: await get('/v1/email-domains'),
    numbers: await get('/v1/phone-numbers'),
    keys: (await get('/v1/api-keys')).data.filter((k: { mode: string }) => k.mode === 'live'),
  };
}

/** The live resource a path's ids name, by the path's first segment. */
function livePath(o: Live, path: string): string {
  const idOf: Record<string, string> = {
    messages: o.message.id,
    verifications: o.verification.id,
    emails: o.message.id, // the Resend-compatible routes name messages
    broadcasts: o.broadcast.id,
    webhooks: o.webhook.id,
    suppressions: o.bounced.id,
    'api-keys': o.liveKeyId,
    contacts: o.contact.id,
    templates: o.template.id,
    segments: o.segment.id,
    topics: o.topic.id,
    'email-domains': o.domain.id,
    'phone-numbers': o.number.id,
  };
  const kind = path.split('/')[1]!;
  return path.replace('{deliveryId}', o.delivery.id).replace(/\{[^}]+\}/g, idOf[kind] ?? 'missing');
}

// Resources that belong to one mode: another mode's id is not found.
const MODAL = ['messages', 'verifications', 'emails', 'broadcasts', 'webhooks', 'suppressions', 'api-keys'];
// Reads of shared configuration a test key may do; every other operation on a live id is refused.
const READS_OF_SHARED = new Set([
  'contact.get',
  'template.get',
  'template.listVersions',
  'template.preview',
  'segment.get',
  'segment.listContacts',
  'topic.get',
  'emailDomain.get',
  'phoneNumber.get',
]);

describe('a test key against live data', () => {
  it('walks every operation on each live resource: modal ones are 404, shared ones readable but never changed (403), nothing live in any answer', async () => {
    const o = await liveOrganization();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as OpenApiDocument;
    const before = await liveState(o);
    const liveIds = [o.message.id, o.verification.id, o.broadcast.id, o.webhook.id, o.delivery.id, o.manual.id, o.bounced.id, o.liveKeyId];
    let walked = 0;
    for (const [template, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const kind = template.split('/')[1]!;
        const hasId = template.includes('{');
        const path = `${prefixOf(op)}${livePath(o, template)}`;
        const query = method === 'get' ? queryString(sampleQuery(doc, op)) : '';
        const body = sampleBody(doc, op);
        const res = await o.test.call(method.toUpperCase(), `${path}${query}`, body ?? undefined);
        const context = `${op.operationId} ${method.toUpperCase()} ${path}`;
        walked++;
        expect({ context, leaked: liveIds.filter((id) => JSON.stringify(res.body ?? '').includes(id)) }).toEqual({ context, leaked: [] });
        if (hasId && MODAL.includes(kind)) expect({ context, status: res.status }).toEqual({ context, status: 404 });
        else if (hasId && READS_OF_SHARED.has(op.operationId)) expect({ context, status: res.status < 500 }).toEqual({ context, status: true });
        else if (
          hasId ||
          (method !== 'get' &&
            !MODAL.includes(kind) &&
            !['template.preview', 'sandbox.inbound', 'message.send', 'message.sendBatch', 'verification.create', 'resend.emails.send', 'resend.batch.send'].includes(
              op.operationId,
            ))
        )
          expect({ context, status: res.status }).toEqual({ context, status: 403 });
      }
    }
    expect(walked).toBeGreaterThanOrEqual(60);
    expect(await liveState(o)).toEqual(before);
  });

  it("walks every operation with another organization's keys, live and test: every id of this one is 404, nothing leaks, nothing changes", async () => {
    const o = await liveOrganization();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as OpenApiDocument;
    const before = await liveState(o);
    const ownIds = [
      o.message.id,
      o.verification.id,
      o.broadcast.id,
      o.webhook.id,
      o.delivery.id,
      o.bounced.id,
      o.contact.id,
      o.template.id,
      o.segment.id,
      o.topic.id,
      o.domain.id,
      o.number.id,
    ];
    const other = await t.org({ mode: 'live' });
    const otherTest = t.client((await other.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    for (const api of [other.api, otherTest]) {
      for (const [template, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const path = `${prefixOf(op)}${livePath(o, template)}`;
          const query = method === 'get' ? queryString(sampleQuery(doc, op)) : '';
          const res = await api.call(method.toUpperCase(), `${path}${query}`, sampleBody(doc, op) ?? undefined);
          const context = `${op.operationId} ${method.toUpperCase()} ${path}`;
          expect({ context, leaked: ownIds.filter((id) => JSON.stringify(res.body ?? '').includes(id)) }).toEqual({ context, leaked: [] });
          // a test key's change to shared configuration is refused before anything is looked up: 403 says nothing either
          if (template.includes('{')) expect({ context, status: (api === other.api ? [404] : [403, 404]).includes(res.status) }).toEqual({ context, status: true });
        }
      }
    }
    expect(await liveState(o)).toEqual(before);
  });

  it('endpoints carry the mode of the key that made them and receive only that mode’s message events; a test key cannot touch a live endpoint', async () => {
    const o = await liveOrganization();
    const own = (await o.test.post('/v1/webhooks', { url: `${receiver.url}/test`, events: ['message.queued'] })).body;
    expect(own.mode).toBe('test');
    expect(o.webhook.mode).toBe('live');
    const testSent = (await o.test.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'a test text' })).body;
    const liveSent = (await o.live.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Your live code is 919191' })).body;

    const payloadsOf = async (api: Live['live'], id: string) => {
      const deliveries = (await api.get(`/v1/webhooks/${id}/events?limit=100`)).body.data as { id: string; eventType: string }[];
      return Promise.all(deliveries.map(async (d) => (await api.get(`/v1/webhooks/${id}/events/${d.id}`)).body.payload.data.id));
    };
    expect(await payloadsOf(o.test, own.id)).toEqual([testSent.id]);
    expect(await payloadsOf(o.live, o.webhook.id)).toEqual(expect.arrayContaining([liveSent.id, o.message.id]));
    expect(await payloadsOf(o.live, o.webhook.id)).not.toContain(testSent.id);
    expect((await o.test.get('/v1/webhooks')).body.data.map((w: { id: string }) => w.id)).toEqual([own.id]);
    expect((await o.live.get('/v1/webhooks')).body.data.map((w: { id: string }) => w.id)).toEqual([o.webhook.id]);

    const before = await t.deps.db.webhook.findUniqueOrThrow({ where: { id: o.webhook.id } });
    for (const res of [
      await o.test.get(`/v1/webhooks/${o.webhook.id}`),
      await o.test.patch(`/v1/webhooks/${o.webhook.id}`, { url: `${receiver.url}/stolen` }),
      await o.test.post(`/v1/webhooks/${o.webhook.id}/rotate-secret`),
      await o.test.delete(`/v1/webhooks/${o.webhook.id}`),
      await o.test.post(`/v1/webhooks/${o.webhook.id}/test`),
      await o.test.post(`/v1/webhooks/${o.webhook.id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() }),
      await o.test.post(`/v1/webhooks/${o.webhook.id}/events/${o.delivery.id}/retry`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect(await t.deps.db.webhook.findUniqueOrThrow({ where: { id: o.webhook.id } })).toEqual(before);
    // and the other way round: the live key cannot see the test endpoint
    expect((await o.live.get(`/v1/webhooks/${own.id}`)).status).toBe(404);
  });

  it('a sandbox STOP or START changes only test state; a test key cannot lift a live suppression or resubscribe a contact', async () => {
    const o = await liveOrganization();
    const stopped = await t.deps.db.contact.update({ where: { id: o.contact.id }, data: { smsSubscribed: false } });
    await t.deps.db.suppression.create({ data: { orgId: o.orgId, recipient: '+14155550123', reason: 'stopped' } });
    const liveBefore = (await o.live.get('/v1/suppressions?limit=100')).body.data;

    const start = await o.test.post('/v1/sandbox/inbound', { channelType: 'sms', from: '+14155550123', to: o.number.number, body: 'START' });
    expect(start.status).toBe(201);
    expect((await o.live.get('/v1/suppressions?limit=100')).body.data).toEqual(liveBefore);
    expect((await o.live.get(`/v1/contacts/${o.contact.id}`)).body.smsSubscribed).toBe(stopped.smsSubscribed);

    // a sandbox STOP: a test suppression; the contact and the live list are untouched
    const liveStop = (await o.live.get('/v1/suppressions?address=%2B14155550123')).body.data[0];
    expect((await o.live.delete(`/v1/suppressions/${liveStop.id}`)).status).toBe(204);
    await o.live.patch(`/v1/contacts/${o.contact.id}`, { smsSubscribed: true });
    const stop = await o.test.post('/v1/sandbox/inbound', { channelType: 'sms', from: '+14155550123', to: o.number.number, body: 'STOP' });
    expect(stop.status).toBe(201);
    expect((await o.live.get(`/v1/contacts/${o.contact.id}`)).body.smsSubscribed).toBe(true);
    expect((await o.live.get('/v1/suppressions?address=%2B14155550123')).body.data).toEqual([]);
    expect((await o.test.get('/v1/suppressions?address=%2B14155550123')).body.data).toMatchObject([{ reason: 'stopped', mode: 'test' }]);

    expect((await o.test.delete(`/v1/suppressions/${o.bounced.id}`)).status).toBe(404);
    expect((await o.test.get('/v1/suppressions')).body.data.map((s: { mode: string }) => s.mode)).toEqual(['test']);
    const resubscribe = await o.test.patch(`/v1/contacts/${o.unsubscribed.id}`, { emailSubscribed: true });
    expect(resubscribe.status).toBe(403);
    expect(resubscribe.body.message).toMatch(/^A test key may read but not change .+\.$/);
    expect((await o.live.get(`/v1/contacts/${o.unsubscribed.id}`)).body.emailSubscribed).toBe(false);
    expect((await o.live.get('/v1/suppressions?reason=bounced')).body.data.map((s: { id: string }) => s.id)).toEqual([o.bounced.id]);
  });

  it('a test broadcast’s unsubscribe link puts the address on the test list only; the contact stays subscribed for live sends', async () => {
    const o = await liveOrganization();
    const own = (await o.test.post('/v1/broadcasts', { name: 'Test news', channelType: 'email', templateId: o.template.id, segmentId: o.segment.id })).body;
    expect(own.mode).toBe('test');
    const token = unsubscribeToken(t.deps.config.broadcasts.unsubscribeSecret, { contactId: o.contact.id, broadcastId: own.id });
    const res = await t.app.request(`/u/${token}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect((await o.live.get(`/v1/contacts/${o.contact.id}`)).body.emailSubscribed).toBe(true);
    expect((await o.live.get('/v1/suppressions?address=ada@example.com')).body.data).toEqual([]);
    expect((await o.test.get('/v1/suppressions?address=ada@example.com')).body.data).toMatchObject([{ reason: 'unsubscribed', mode: 'test' }]);
    expect((await o.test.get(`/v1/broadcasts/${own.id}`)).body.counts.unsubscribed).toBe(1);
  });

  it('a test key reads shared configuration but cannot change what a live broadcast sends (template, segment)', async () => {
    const o = await liveOrganization();
    expect((await o.test.get(`/v1/templates/${o.template.id}`)).body.text).toBe('The live text');
    expect((await o.test.patch(`/v1/templates/${o.template.id}`, { text: 'Changed by a test key' })).status).toBe(403);
    expect((await o.test.patch(`/v1/segments/${o.segment.id}`, { criteria: { all: [] } })).status).toBe(403);
    expect((await o.test.post('/v1/contacts', { email: 'new@example.com' })).status).toBe(403);
    // refused before the body is looked at: a wrong body teaches a test key nothing either
    expect((await o.test.patch(`/v1/templates/${o.template.id}`, { nickname: 1 })).status).toBe(403);
    expect((await o.live.get(`/v1/templates/${o.template.id}`)).body).toMatchObject({ version: 1, text: 'The live text' });
  });
});

describe('an organization made for testing', () => {
  it('lets its test keys change its configuration: there is no live send to protect', async () => {
    const { api } = await t.org({ mode: 'test' });
    const template = await api.post('/v1/templates', { name: 'T', channelType: 'sms', body: 'Hi' });
    expect(template.status).toBe(201);
    expect((await api.patch(`/v1/templates/${template.body.id}`, { body: 'Hello' })).status).toBe(200);
    expect((await api.post('/v1/contacts', { email: 'ada@example.com' })).status).toBe(201);
  });
});

describe('broadcasts pin their template version', () => {
  it('when scheduled: a later template edit does not change what it sends, and broadcast.get says which version', async () => {
    const { api } = await t.org({ mode: 'test' });
    const template = (await api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'News', text: 'First' })).body;
    const draft = (await api.post('/v1/broadcasts', { name: 'Later', channelType: 'email', templateId: template.id })).body;
    expect(draft.templateVersion).toBeNull();
    const scheduled = await api.post(`/v1/broadcasts/${draft.id}/send`, { scheduledAt: inAnHour() });
    expect(scheduled.body).toMatchObject({ status: 'scheduled', templateVersion: 1 });
    expect((await api.patch(`/v1/templates/${template.id}`, { text: 'Second' })).body.version).toBe(2);
    expect((await api.get(`/v1/broadcasts/${draft.id}`)).body).toMatchObject({ status: 'scheduled', templateVersion: 1 });
  });
});
