import { insertApiKey, newId } from '@tidings/core';
import { setupApi } from './setup.ts';

// `to` as a list on message.send and sendBatch, and message.getSource, through the HTTP app (the send-worker's side:
// apps/send-worker/test/several-recipients.test.ts).
const t = setupApi();
afterAll(() => t.close());

const email = (extra: Record<string, unknown>) => ({ channelType: 'email', subject: 'Hi', text: 'Hello', ...extra });

describe('to as an array', () => {
  it('makes one message to every To recipient: `to` stays the first (a string), `toAll` names them all, duplicates once', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', email({ to: ['ada@example.com', 'Grace@Example.com', 'ada@example.com'], cc: ['bo@example.com'] }));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ to: 'ada@example.com', toAll: ['ada@example.com', 'grace@example.com'], cc: ['bo@example.com'] });
    const single = (await api.post('/v1/messages', email({ to: 'cy@example.com' }))).body;
    expect(single).toMatchObject({ to: 'cy@example.com', toAll: ['cy@example.com'] });
    const listed = (await api.get('/v1/messages?limit=5')).body.data;
    expect(listed.map((m: { toAll: string[] }) => m.toAll)).toEqual([['cy@example.com'], ['ada@example.com', 'grace@example.com']]);
    expect((await api.get(`/v1/messages/${res.body.id}`)).body.toAll).toEqual(['ada@example.com', 'grace@example.com']);

    const batch = await api.post('/v1/messages/batch', { messages: [email({ to: ['a@example.com', 'b@example.com'] }), email({ to: ['a@example.com', 'nope'] })] });
    expect(batch.status).toBe(202);
    expect(batch.body.data[0].toAll).toEqual(['a@example.com', 'b@example.com']);
    expect(batch.body.errors).toEqual([{ index: 1, code: 'BAD_REQUEST', message: 'to.1: must be a valid email address for channelType email' }]);
  });

  it('refuses more than 50 To, Cc and Bcc recipients together, several To for an SMS, and a contactId whose address is not among them, storing nothing', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}@example.com`);
    const tooMany = await api.post('/v1/messages', email({ to: fifty, bcc: ['one@example.com'] }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ code: 'BAD_REQUEST', message: 'to: to, cc and bcc together must be at most 50 recipients (got 51)' });
    const overSchema = await api.post('/v1/messages', email({ to: [...fifty, 'x@example.com'] }));
    expect(overSchema.status).toBe(400);
    expect(overSchema.body.message).toMatch(/^to/);
    const sms = await api.post('/v1/messages', { channelType: 'sms', to: ['+14155550123', '+14155550124'], body: 'hi' });
    expect(sms.body).toEqual({ code: 'BAD_REQUEST', message: 'to: one recipient only for channelType sms' });
    const contact = (await api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const mismatch = await api.post('/v1/messages', email({ contactId: contact.id, to: ['grace@example.com', 'bo@example.com'] }));
    expect(mismatch.status).toBe(400);
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
    const withContact = await api.post('/v1/messages', email({ contactId: contact.id, to: ['grace@example.com', 'ada@example.com'] }));
    expect(withContact.body).toMatchObject({ contactId: contact.id, toAll: ['grace@example.com', 'ada@example.com'] });
  });
});

describe('message.getSource', () => {
  it('answers the RFC 5322 source with every header; 404 for an SMS, another organization, or a key of the other mode', async () => {
    const owner = await t.org({ mode: 'live' });
    await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: owner.orgId, name: 'acme.example', status: 'verified', provider: 'sandbox', records: [] } });
    const sent = (
      await owner.api.post(
        '/v1/messages',
        email({
          from: 'Acme <hello@acme.example>',
          to: ['ada@example.com', 'grace@example.com'],
          cc: ['bo@example.com'],
          bcc: ['secret@example.com'],
          replyTo: 'help@acme.example',
          headers: { 'X-Entity-Ref-ID': 'ref-1' },
          html: '<p>Hello</p>',
          attachments: [{ filename: 'note.txt', content: Buffer.from('a note').toString('base64') }],
        }),
      )
    ).body;
    const res = await owner.api.get(`/v1/messages/${sent.id}/source`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    const source: string = res.body;
    const header = (name: string) => new RegExp(`^${name}: (.*)\\r$`, 'mi').exec(source)?.[1];
    expect(header('From')).toBe('Acme <hello@acme.example>');
    expect(header('To')).toBe('ada@example.com, grace@example.com');
    expect(header('Cc')).toBe('bo@example.com');
    expect(header('Reply-To')).toBe('help@acme.example');
    expect(header('Subject')).toBe('Hi');
    expect(header('Message-ID')).toBe(`<${sent.id}@acme.example>`);
    expect(new Date(header('Date')!).toISOString()).toBe(new Date(Math.floor(Date.parse(sent.createdAt) / 1000) * 1000).toISOString());
    expect(header('X-Entity-Ref-ID')).toBe('ref-1');
    expect(header('X-Tidings-Message-Id')).toBe(sent.id);
    expect(source).not.toContain('secret@example.com');
    expect(source).toContain(Buffer.from('a note').toString('base64'));
    // rebuilt the same every time
    expect((await owner.api.get(`/v1/messages/${sent.id}/source`)).body).toBe(source);

    // a broadcast's email carries its List-Unsubscribe headers, as sent
    const contact = (await owner.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    await t.deps.db.message.updateMany({ where: { id: sent.id }, data: { broadcastId: newId('brd'), contactId: contact.id } });
    const fromBroadcast: string = (await owner.api.get(`/v1/messages/${sent.id}/source`)).body;
    expect(fromBroadcast).toMatch(/^List-Unsubscribe:\s+<http[^>]+\/u\/[^>]+>\r$/m); // folded when long
    expect(fromBroadcast).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);

    const sms = (await owner.api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'hi' })).body;
    expect((await owner.api.get(`/v1/messages/${sms.id}/source`)).status).toBe(404);
    const stranger = await t.org({ mode: 'live' });
    const foreign = await stranger.api.get(`/v1/messages/${sent.id}/source`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    const testKey = await insertApiKey(t.deps.db, owner.orgId, { name: 'test', permission: 'full', mode: 'test' });
    expect((await t.client(testKey.key).get(`/v1/messages/${sent.id}/source`)).status).toBe(404);
    expect((await owner.api.get(`/v1/messages/${newId('msg')}/source`)).status).toBe(404);
  });
});
