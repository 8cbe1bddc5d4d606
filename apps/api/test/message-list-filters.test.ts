import { insertApiKey, newId } from '@tidings/core';
import { setupApi } from './setup.ts';

// message.list's filters by the things a message belongs to: a broadcast and a contact.
const t = setupApi();
afterAll(() => t.close());

describe('message.list filters broadcastId and contactId', () => {
  it("lists only that broadcast's or contact's messages, newest first; another organization's or mode's id finds nothing", async () => {
    const owner = await t.org({ mode: 'live' });
    await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: owner.orgId, name: 'acme.example', status: 'verified', provider: 'sandbox', records: [] } });
    const template = (await owner.api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'News', text: 'News' })).body;
    const broadcast = (await owner.api.post('/v1/broadcasts', { name: 'News', channelType: 'email', templateId: template.id, from: 'news@acme.example' })).body;
    const contact = (await owner.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const email = (extra: Record<string, unknown>) => ({ channelType: 'email', from: 'hello@acme.example', subject: 'Hi', text: 'Hi', ...extra });

    const fromBroadcast = (await owner.api.post('/v1/messages', email({ to: 'ada@example.com' }))).body;
    // a broadcast's messages are made by its fan-out on the send-worker; this one gets the links the fan-out sets
    await t.deps.db.message.updateMany({ where: { id: fromBroadcast.id }, data: { broadcastId: broadcast.id, contactId: contact.id } });
    const toContact = (await owner.api.post('/v1/messages', email({ contactId: contact.id }))).body;
    const unrelated = (await owner.api.post('/v1/messages', email({ to: 'grace@example.com' }))).body;
    for (const message of [fromBroadcast, toContact, unrelated]) expect(message.id).toMatch(/^msg_/);

    const ids = async (api: typeof owner.api, query: string) => {
      const res = await api.get(`/v1/messages?${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((m: { id: string }) => m.id);
    };
    expect(await ids(owner.api, `broadcastId=${broadcast.id}`)).toEqual([fromBroadcast.id]);
    expect(await ids(owner.api, `contactId=${contact.id}`)).toEqual([toContact.id, fromBroadcast.id]);
    expect(await ids(owner.api, `contactId=${contact.id}&broadcastId=${broadcast.id}`)).toEqual([fromBroadcast.id]);
    expect((await owner.api.get(`/v1/messages?broadcastId=${broadcast.id}`)).body.data[0]).toMatchObject({ broadcastId: broadcast.id, contactId: contact.id });

    const stranger = await t.org({ mode: 'live' });
    expect(await ids(stranger.api, `broadcastId=${broadcast.id}`)).toEqual([]);
    expect(await ids(stranger.api, `contactId=${contact.id}`)).toEqual([]);
    const testKey = await insertApiKey(t.deps.db, owner.orgId, { name: 'test', permission: 'full', mode: 'test' });
    const test = t.client(testKey.key);
    expect(await ids(test, `broadcastId=${broadcast.id}`)).toEqual([]);
    expect(await ids(test, `contactId=${contact.id}`)).toEqual([]);
  });

  it('refuses a broadcastId that is not an id (400 naming it)', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.get(`/v1/messages?broadcastId=${'x'.repeat(65)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^broadcastId: /);
  });
});
