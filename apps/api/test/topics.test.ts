import { newId, unsubscribeToken } from '@tidings/core';
import { setupApi } from './setup.ts';

const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000', UNSUBSCRIBE_RATE_LIMIT: '1000' });
afterAll(() => t.close());

const form = (fields: [string, string][]) => ({
  method: 'POST',
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const secret = () => t.deps.config.broadcasts.unsubscribeSecret;
const contactRow = (id: string) => t.deps.db.contact.findUniqueOrThrow({ where: { id } });

/** A live organization (named) with a verified domain, two public topics and a private one, and a template. */
async function liveOrg(name = `Acme ${Math.random().toString(36).slice(2, 8)}`) {
  const org = await t.org({ mode: 'live' });
  await t.deps.db.organization.update({ where: { id: org.orgId }, data: { name } });
  await t.deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId: org.orgId, name: `${org.orgId.toLowerCase()}.example.com`, status: 'verified', provider: 'sandbox', records: [] },
  });
  const from = `News <news@${org.orgId.toLowerCase()}.example.com>`;
  const news = (await org.api.post('/v1/topics', { name: 'Product news', description: 'What we shipped', defaultSubscription: 'opt_out' })).body;
  const digest = (await org.api.post('/v1/topics', { name: 'Weekly digest', defaultSubscription: 'opt_in' })).body;
  const hidden = (await org.api.post('/v1/topics', { name: 'Beta testers', defaultSubscription: 'opt_in', visibility: 'private' })).body;
  const template = (await org.api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'News', text: 'Hi {{ preferencesUrl }}' })).body;
  return { ...org, name, from, news, digest, hidden, template };
}
type Org = Awaited<ReturnType<typeof liveOrg>>;

async function broadcastTo(o: Org, topicId?: string) {
  const res = await o.api.post('/v1/broadcasts', { name: 'News', channelType: 'email', templateId: o.template.id, from: o.from, ...(topicId ? { topicId } : {}) });
  expect(res.status).toBe(201);
  return res.body as { id: string; topicId: string | null };
}

describe('topic.create, list, get, update, delete', () => {
  it('creates a topic (public by default), reads, lists, updates and deletes it', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/topics', { name: ' Product news ', defaultSubscription: 'opt_in' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Product news', description: null, defaultSubscription: 'opt_in', visibility: 'public' });
    expect(created.body.id).toMatch(/^top_/);
    expect((await api.get(`/v1/topics/${created.body.id}`)).body).toEqual(created.body);
    const second = (await api.post('/v1/topics', { name: 'Digest', defaultSubscription: 'opt_out', visibility: 'private' })).body;
    expect((await api.get('/v1/topics')).body.data.map((x: { id: string }) => x.id)).toEqual([second.id, created.body.id]);
    const updated = await api.patch(`/v1/topics/${created.body.id}`, { description: 'Monthly', defaultSubscription: 'opt_out' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Product news', description: 'Monthly', defaultSubscription: 'opt_out', visibility: 'public' });
    expect((await api.delete(`/v1/topics/${created.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/topics/${created.body.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/topics/${created.body.id}`)).status).toBe(404);
  });

  it('refuses bad input with a 400 naming the field, and creates nothing', async () => {
    const { api, orgId } = await t.org();
    for (const body of [
      { name: 'x' },
      { name: 'x', defaultSubscription: 'maybe' },
      { name: '  ', defaultSubscription: 'opt_in' },
      { name: 'x', defaultSubscription: 'opt_in', visibility: 'secret' },
      { name: 'x', defaultSubscription: 'opt_in', colour: 'red' },
    ]) {
      const res = await api.post('/v1/topics', body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'BAD_REQUEST' });
      expect(res.body.message).toMatch(/defaultSubscription|name|visibility|colour/);
    }
    expect(await t.deps.db.topic.count({ where: { orgId } })).toBe(0);
    const topic = (await api.post('/v1/topics', { name: 'x', defaultSubscription: 'opt_in' })).body;
    expect((await api.patch(`/v1/topics/${topic.id}`, {})).status).toBe(400);
  });

  it("another organization's topic is 404 to every operation, and nothing of theirs changes", async () => {
    const mine = await t.org();
    const theirs = await t.org();
    const topic = (await theirs.api.post('/v1/topics', { name: 'Theirs', defaultSubscription: 'opt_out' })).body;
    const contact = (await mine.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const template = (await mine.api.post('/v1/templates', { name: 'T', channelType: 'email', subject: 's', text: 't' })).body;
    for (const res of [
      await mine.api.get(`/v1/topics/${topic.id}`),
      await mine.api.patch(`/v1/topics/${topic.id}`, { name: 'Mine now' }),
      await mine.api.delete(`/v1/topics/${topic.id}`),
      await mine.api.patch(`/v1/contacts/${contact.id}`, { topics: [{ topicId: topic.id, subscribed: false }] }),
      await mine.api.post('/v1/contacts', { email: 'bob@example.com', topics: [{ topicId: topic.id, subscribed: true }] }),
      await mine.api.post('/v1/broadcasts', { name: 'B', channelType: 'email', templateId: template.id, topicId: topic.id }),
    ]) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('Theirs');
    }
    expect((await mine.api.get('/v1/topics')).body.data).toEqual([]);
    expect((await theirs.api.get(`/v1/topics/${topic.id}`)).body).toEqual(topic);
    expect((await mine.api.get(`/v1/contacts/${contact.id}`)).body.topics).toEqual([]);
    expect(await t.deps.db.contact.count({ where: { orgId: mine.orgId } })).toBe(1);
    expect(await t.deps.db.broadcast.count({ where: { orgId: mine.orgId } })).toBe(0);
    const bulk = await mine.api.post('/v1/contacts/bulk', {
      contacts: [{ email: 'cy@example.com' }, { email: 'dee@example.com', topics: [{ topicId: topic.id, subscribed: true }] }],
    });
    expect(bulk.body.created.map((c: { email: string }) => c.email)).toEqual(['cy@example.com']);
    expect(bulk.body.errors).toEqual([{ index: 1, code: 'NOT_FOUND', message: expect.stringContaining('topic') }]);
  });

  it('a test key reads topics but cannot change them or a contact’s choices (403); nothing changes', async () => {
    const o = await liveOrg();
    const test = t.client((await o.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com', topics: [{ topicId: o.news.id, subscribed: true }] })).body;
    expect((await test.get(`/v1/topics/${o.news.id}`)).body).toEqual(o.news);
    expect((await test.get('/v1/topics')).body.data).toHaveLength(3);
    for (const res of [
      await test.post('/v1/topics', { name: 'Test', defaultSubscription: 'opt_in' }),
      await test.patch(`/v1/topics/${o.news.id}`, { defaultSubscription: 'opt_in' }),
      await test.delete(`/v1/topics/${o.news.id}`),
      await test.patch(`/v1/contacts/${contact.id}`, { topics: [{ topicId: o.news.id, subscribed: false }] }),
    ]) {
      expect(res.status).toBe(403);
    }
    expect((await o.api.get(`/v1/topics/${o.news.id}`)).body).toEqual(o.news);
    expect((await o.api.get('/v1/topics')).body.data).toHaveLength(3);
    expect((await o.api.get(`/v1/contacts/${contact.id}`)).body.topics).toEqual([{ topicId: o.news.id, subscribed: true }]);
  });
});

describe("a contact's topics", () => {
  it('are set on create and bulkCreate, merged by topic on update, and refused when repeated', async () => {
    const o = await liveOrg();
    const created = await o.api.post('/v1/contacts', { email: 'ada@example.com', topics: [{ topicId: o.digest.id, subscribed: true }] });
    expect(created.status).toBe(201);
    expect(created.body.topics).toEqual([{ topicId: o.digest.id, subscribed: true }]);
    const updated = await o.api.patch(`/v1/contacts/${created.body.id}`, { topics: [{ topicId: o.news.id, subscribed: false }] });
    expect(updated.status).toBe(200);
    expect(updated.body.topics).toEqual(
      expect.arrayContaining([
        { topicId: o.digest.id, subscribed: true },
        { topicId: o.news.id, subscribed: false },
      ]),
    );
    expect(updated.body.topics).toHaveLength(2);
    const events = await t.deps.db.event.findMany({ where: { orgId: o.orgId, type: 'contact.updated' } });
    expect((events.at(-1)!.data as { topics: unknown[] }).topics).toHaveLength(2);
    const repeated = await o.api.patch(`/v1/contacts/${created.body.id}`, {
      topics: [
        { topicId: o.news.id, subscribed: true },
        { topicId: o.news.id, subscribed: false },
      ],
    });
    expect(repeated.status).toBe(400);
    const bulk = await o.api.post('/v1/contacts/bulk', { contacts: [{ email: 'bob@example.com', topics: [{ topicId: o.hidden.id, subscribed: true }] }] });
    expect(bulk.body.created[0].topics).toEqual([{ topicId: o.hidden.id, subscribed: true }]);
  });

  it("deleting a topic removes the contacts' choices; a broadcast that named it keeps its topicId", async () => {
    const o = await liveOrg();
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com', topics: [{ topicId: o.news.id, subscribed: false }] })).body;
    const broadcast = await broadcastTo(o, o.news.id);
    expect(broadcast.topicId).toBe(o.news.id);
    expect((await o.api.delete(`/v1/topics/${o.news.id}`)).status).toBe(204);
    expect((await o.api.get(`/v1/contacts/${contact.id}`)).body.topics).toEqual([]);
    expect((await o.api.get(`/v1/broadcasts/${broadcast.id}`)).body.topicId).toBe(o.news.id);
  });
});

describe('the one-click unsubscribe of a topic broadcast', () => {
  it('names the organization and the topic, links to the preference page, and unsubscribes from that topic only, once', async () => {
    const o = await liveOrg('Acme Widgets');
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com', topics: [{ topicId: o.digest.id, subscribed: true }] })).body;
    const broadcast = await broadcastTo(o, o.news.id);
    const subject = { contactId: contact.id, broadcastId: broadcast.id };
    const path = `/u/${unsubscribeToken(secret(), subject)}`;
    const page = await t.app.request(path);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Acme Widgets');
    expect(text).toContain('Product news');
    expect(text).toContain(`/p/${unsubscribeToken(secret(), subject, 'preferences')}`);

    const oneClick = await t.app.request(path, form([['List-Unsubscribe', 'One-Click']]));
    expect(oneClick.status).toBe(200);
    const after = (await o.api.get(`/v1/contacts/${contact.id}`)).body;
    expect(after.emailSubscribed).toBe(true);
    expect(after.topics).toEqual(
      expect.arrayContaining([
        { topicId: o.news.id, subscribed: false },
        { topicId: o.digest.id, subscribed: true },
      ]),
    );
    expect(await t.deps.db.suppression.count({ where: { orgId: o.orgId } })).toBe(0);
    expect((await o.api.get(`/v1/broadcasts/${broadcast.id}`)).body.counts.unsubscribed).toBe(1);
    expect((await t.app.request(path, form([['List-Unsubscribe', 'One-Click']]))).status).toBe(200);
    expect((await o.api.get(`/v1/broadcasts/${broadcast.id}`)).body.counts.unsubscribed).toBe(1);
    expect(await t.deps.db.event.count({ where: { orgId: o.orgId, type: 'contact.updated' } })).toBe(1);
    expect(await t.deps.db.event.count({ where: { orgId: o.orgId, type: 'contact.unsubscribed' } })).toBe(0);
  });
});

describe('the preference page', () => {
  it("shows the organization's public topics with the contact's state, saves the form, and unsubscribes from and resubscribes to everything", async () => {
    const o = await liveOrg('Acme Widgets');
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const broadcast = await broadcastTo(o);
    const path = `/p/${unsubscribeToken(secret(), { contactId: contact.id, broadcastId: broadcast.id }, 'preferences')}`;

    const page = await t.app.request(path);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Acme Widgets');
    expect(text).not.toContain('<script');
    expect(text).toMatch(new RegExp(`value="${o.news.id}" checked> Product news`)); // opt_out: in it without choosing
    expect(text).toMatch(new RegExp(`value="${o.digest.id}"> Weekly digest`)); // opt_in: not in it
    expect(text).not.toContain('Beta testers'); // private
    expect(text).toContain('Unsubscribe from everything');

    // untick Product news, tick Weekly digest
    const saved = await t.app.request(
      path,
      form([
        ['action', 'save'],
        ['shown', o.news.id],
        ['shown', o.digest.id],
        ['topic', o.digest.id],
      ]),
    );
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('Your preferences are saved');
    const after = (await o.api.get(`/v1/contacts/${contact.id}`)).body;
    expect(after.topics).toEqual(
      expect.arrayContaining([
        { topicId: o.news.id, subscribed: false },
        { topicId: o.digest.id, subscribed: true },
      ]),
    );
    expect(after.topics).toHaveLength(2);
    expect(await t.deps.db.event.count({ where: { orgId: o.orgId, type: 'contact.updated' } })).toBe(1);

    // a private topic named in the form is not changed by it
    await t.app.request(
      path,
      form([
        ['action', 'save'],
        ['shown', o.hidden.id],
        ['topic', o.hidden.id],
      ]),
    );
    expect((await o.api.get(`/v1/contacts/${contact.id}`)).body.topics).toHaveLength(2);

    const everything = await t.app.request(path, form([['action', 'unsubscribe-all']]));
    expect(everything.status).toBe(200);
    expect(await everything.text()).toContain('Resubscribe');
    expect((await o.api.get(`/v1/contacts/${contact.id}`)).body.emailSubscribed).toBe(false);
    expect(await t.deps.db.suppression.count({ where: { orgId: o.orgId, recipient: 'ada@example.com', reason: 'unsubscribed' } })).toBe(1);
    expect(await t.deps.db.event.count({ where: { orgId: o.orgId, type: 'contact.unsubscribed' } })).toBe(1);

    expect((await t.app.request(path, form([['action', 'resubscribe']]))).status).toBe(200);
    expect((await o.api.get(`/v1/contacts/${contact.id}`)).body.emailSubscribed).toBe(true);
    expect(await t.deps.db.suppression.count({ where: { orgId: o.orgId } })).toBe(0);

    expect((await t.app.request(path, form([['action', 'dance']]))).status).toBe(400);
  });

  it("a forged token, an unsubscribe token, or one joining another organization's contact is 404 and changes nothing", async () => {
    const o = await liveOrg();
    const other = await liveOrg();
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const theirContact = (await other.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const broadcast = await broadcastTo(o, o.news.id);
    const theirBroadcast = await broadcastTo(other, other.news.id);
    const good = unsubscribeToken(secret(), { contactId: contact.id, broadcastId: broadcast.id }, 'preferences');
    const [contactPart, broadcastPart, signature] = good.split('.');
    const flipped = signature!.slice(0, -1) + (signature!.endsWith('A') ? 'B' : 'A');
    const before = [await contactRow(contact.id), await contactRow(theirContact.id)];
    for (const token of [
      `${contactPart}.${broadcastPart}.${flipped}`,
      unsubscribeToken(secret(), { contactId: contact.id, broadcastId: broadcast.id }), // signed for /u/, not /p/
      unsubscribeToken(secret(), { contactId: theirContact.id, broadcastId: broadcast.id }, 'preferences'),
      unsubscribeToken(secret(), { contactId: contact.id, broadcastId: theirBroadcast.id }, 'preferences'),
      'nothing',
    ]) {
      for (const init of [
        undefined,
        form([['action', 'unsubscribe-all']]),
        form([
          ['action', 'save'],
          ['shown', o.news.id],
        ]),
      ]) {
        const res = await t.app.request(`/p/${token}`, init);
        expect({ token, status: res.status }).toEqual({ token, status: 404 });
      }
    }
    for (const token of [
      unsubscribeToken(secret(), { contactId: theirContact.id, broadcastId: broadcast.id }),
      unsubscribeToken(secret(), { contactId: contact.id, broadcastId: broadcast.id }, 'preferences'), // signed for /p/, not /u/
    ]) {
      expect((await t.app.request(`/u/${token}`, form([['List-Unsubscribe', 'One-Click']]))).status).toBe(404);
    }
    expect([await contactRow(contact.id), await contactRow(theirContact.id)]).toEqual(before);
    expect(await t.deps.db.event.count({ where: { orgId: { in: [o.orgId, other.orgId] }, type: { in: ['contact.updated', 'contact.unsubscribed'] } } })).toBe(0);
  });

  it("a test broadcast's links change no contact: the one-click puts the address on the test list, the page saves nothing", async () => {
    const o = await liveOrg();
    const test = t.client((await o.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    const contact = (await o.api.post('/v1/contacts', { email: 'ada@example.com', topics: [{ topicId: o.news.id, subscribed: true }] })).body;
    const own = (await test.post('/v1/broadcasts', { name: 'Test', channelType: 'email', templateId: o.template.id, topicId: o.news.id })).body;
    expect(own.mode).toBe('test');
    const subject = { contactId: contact.id, broadcastId: own.id };
    const before = await contactRow(contact.id);
    const page = await t.app.request(
      `/p/${unsubscribeToken(secret(), subject, 'preferences')}`,
      form([
        ['action', 'save'],
        ['shown', o.news.id],
      ]),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('not saved');
    expect((await t.app.request(`/u/${unsubscribeToken(secret(), subject)}`, form([['List-Unsubscribe', 'One-Click']]))).status).toBe(200);
    expect(await contactRow(contact.id)).toEqual(before);
    expect((await o.api.get('/v1/suppressions?address=ada@example.com')).body.data).toEqual([]);
    expect((await test.get('/v1/suppressions?address=ada@example.com')).body.data).toMatchObject([{ reason: 'unsubscribed', mode: 'test' }]);
  });
});
