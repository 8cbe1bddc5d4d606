import { setupApi } from './setup.ts';

const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000' });
afterAll(() => t.close());

// Postgres text refuses NUL, jsonb refuses NUL and lone surrogates, timestamps refuse year 0: each such input is a
// 400 naming the field, never a 500, and nothing is written.
const NUL = 'a\u0000b';
const LONE = 'a\ud800b';
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

type Res = { status: number; body: { code: string; message: string } };

async function expectBadRequest(call: Promise<Res>, field: string) {
  const res = await call;
  if (!res.body?.message) throw new Error(`${field}: answered ${res.status} ${JSON.stringify(res.body)}`);
  expect({ status: res.status, code: res.body.code, names: res.body.message.includes(field) ? field : res.body.message }).toEqual({
    status: 400,
    code: 'BAD_REQUEST',
    names: field,
  });
}

describe('text Postgres cannot store is a 400 naming the field', () => {
  it('NUL and lone surrogates in message fields, tags, metadata and variables', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const tpl = await api.post('/v1/templates', { name: 't', channelType: 'sms', body: 'Hi {{ v }}' });
    const sms = { channelType: 'sms', to: '+14155550123', body: 'hello' };
    for (const bad of [NUL, LONE]) {
      await expectBadRequest(api.post('/v1/messages', { ...sms, body: bad }), 'body');
      await expectBadRequest(api.post('/v1/messages', { channelType: 'email', to: 'a@example.com', subject: bad, text: 'x' }), 'subject');
      await expectBadRequest(api.post('/v1/messages', { channelType: 'email', to: 'a@example.com', subject: 's', html: bad }), 'html');
      await expectBadRequest(api.post('/v1/messages', { ...sms, tags: ['ok', bad] }), 'tags.1');
      await expectBadRequest(api.post('/v1/messages', { ...sms, metadata: { k: bad } }), 'metadata.k');
      await expectBadRequest(api.post('/v1/messages', { ...sms, metadata: { [bad]: 'v' } }), 'metadata');
      await expectBadRequest(api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', templateId: tpl.body.id, variables: { v: bad } }), 'variables.v');
      await expectBadRequest(api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { v: { deep: [bad] } } }), 'variables.v');
    }
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('NUL in list query values and in names of keys, webhooks, senders and numbers', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const q = encodeURIComponent(NUL);
    for (const query of ['to', 'contactId', 'templateId', 'tag']) await expectBadRequest(api.get(`/v1/messages?${query}=${q}`), query);
    await expectBadRequest(api.get(`/v1/templates?name=${q}`), 'name');
    await expectBadRequest(api.get(`/v1/contacts?q=${q}`), 'q');
    await expectBadRequest(api.post('/v1/api-keys', { name: NUL, permission: 'full' }), 'name');
    await expectBadRequest(api.post('/v1/webhooks', { url: 'https://example.com/h', events: ['message.sent'], description: NUL }), 'description');
    await expectBadRequest(api.post('/v1/phone-numbers', { number: '+15005550100', friendlyName: LONE }), 'friendlyName');
    await expectBadRequest(api.post('/v1/email-domains', { name: `a${NUL}.example.com` }), 'name');
    const domain = await api.post('/v1/email-domains', { name: 'example.com' });
    await expectBadRequest(api.put(`/v1/email-domains/${domain.body.id}/default-sender`, { fromName: NUL, fromAddress: 'a@example.com' }), 'fromName');
    expect(await t.deps.db.apiKey.count({ where: { orgId } })).toBe(1);
    expect(await t.deps.db.webhook.count({ where: { orgId } })).toBe(0);
  });

  it('lone surrogates in contact attributes (create, update, bulk) and segment criteria values', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const contact = await api.post('/v1/contacts', { email: 'c@example.com' });
    await expectBadRequest(api.post('/v1/contacts', { email: 'x@example.com', attributes: { a: LONE } }), 'attributes.a');
    await expectBadRequest(api.post('/v1/contacts', { email: 'x@example.com', firstName: LONE }), 'firstName');
    await expectBadRequest(api.patch(`/v1/contacts/${contact.body.id}`, { attributes: { a: { b: [LONE] } } }), 'attributes.a');
    const bulk = await api.post('/v1/contacts/bulk', { contacts: [{ email: 'y@example.com', attributes: { a: LONE } }, { email: 'z@example.com' }] });
    expect(bulk.status).toBe(200);
    expect(bulk.body.errors).toEqual([expect.objectContaining({ index: 0, code: 'BAD_REQUEST' })]);
    await expectBadRequest(api.post('/v1/segments', { name: 's', criteria: { all: [{ field: 'attributes.a', op: 'eq', value: LONE }] } }), 'criteria.all.0.value');
    await expectBadRequest(api.post('/v1/segments', { name: LONE, criteria: { all: [{ field: 'email', op: 'exists' }] } }), 'name');
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(2);
    expect(await t.deps.db.segment.count({ where: { orgId } })).toBe(0);
  });
});

describe('dates and cursors outside what Postgres stores are a 400', () => {
  it('year 0000 and other out-of-range dates in scheduledAt, createdAfter and createdBefore', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    for (const date of ['0000-01-01T00:00:00Z', '0000-12-31T23:59:59.999Z', '-271821-04-20T00:00:00Z', '+275760-09-13T00:00:00Z']) {
      await expectBadRequest(api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'x', scheduledAt: date }), 'scheduledAt');
      for (const list of ['messages', 'contacts']) {
        await expectBadRequest(api.get(`/v1/${list}?createdAfter=${encodeURIComponent(date)}`), 'createdAfter');
        await expectBadRequest(api.get(`/v1/${list}?createdBefore=${encodeURIComponent(date)}`), 'createdBefore');
      }
    }
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('forged cursors: dates of year 0 or -271821, ids with NUL, template-version cursors of 1e300', async () => {
    const { api } = await t.org({ mode: 'test' });
    const tpl = await api.post('/v1/templates', { name: 't', channelType: 'sms', body: 'x' });
    const forged = [cursorOf('0000-01-01T00:00:00.000Z|msg_x'), cursorOf('-271821-04-20T00:00:00.000Z|msg_x'), cursorOf(`2026-01-01T00:00:00.000Z|msg_${'\u0000'}x`)];
    for (const list of ['messages', 'contacts', 'templates', 'segments', 'webhooks', 'api-keys', 'email-domains', 'phone-numbers']) {
      for (const cursor of forged) await expectBadRequest(api.get(`/v1/${list}?cursor=${cursor}`), 'cursor');
    }
    for (const version of ['1e300', '-1', '0', '2147483648', 'NaN']) {
      await expectBadRequest(api.get(`/v1/templates/${tpl.body.id}/versions?cursor=${cursorOf(`2026-01-01T00:00:00.000Z|${version}`)}`), 'cursor');
    }
  });
});

describe('message.sendBatch', () => {
  it('one item Postgres cannot store is an error for that item only; the others are accepted', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const ok = { channelType: 'sms', to: '+14155550123', body: 'ok' };
    const res = await api.post('/v1/messages/batch', {
      messages: [ok, { ...ok, body: NUL }, { ...ok, metadata: { k: LONE } }, { ...ok, scheduledAt: '0000-01-01T00:00:00Z' }, ok],
    });
    expect(res.status).toBe(202);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'BAD_REQUEST'],
      [2, 'BAD_REQUEST'],
      [3, 'BAD_REQUEST'],
    ]);
    expect(res.body.data.map((m: unknown) => m !== null)).toEqual([true, false, false, false, true]);
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(2);
  });
});

describe('ids in a body must name something of the caller', () => {
  it("another organization's contactId or templateId, or an unknown one, is 404 naming the kind; nothing is stored", async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const other = await t.org({ mode: 'test' });
    const theirContact = (await other.api.post('/v1/contacts', { email: 'theirs@example.com' })).body;
    const theirTemplate = (await other.api.post('/v1/templates', { name: 't', channelType: 'sms', body: 'secret {{ x }}' })).body;
    const sms = { channelType: 'sms', to: '+14155550123', body: 'hi' };
    const cases = [
      [{ ...sms, contactId: theirContact.id }, 'Contact not found'],
      [{ ...sms, contactId: 'con_does_not_exist' }, 'Contact not found'],
      [{ ...sms, contactId: 'anything at all' }, 'Contact not found'],
      [{ channelType: 'sms', to: '+14155550123', templateId: theirTemplate.id, variables: { x: '1' } }, 'templateId: Template not found'],
    ] as const;
    for (const [body, message] of cases) {
      const res = await api.post('/v1/messages', body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { code: 'NOT_FOUND', message } });
    }
    const mine = (await api.post('/v1/contacts', { email: 'mine@example.com', phone: '+14155550123' })).body;
    const batch = await api.post('/v1/messages/batch', {
      messages: [
        { ...sms, contactId: mine.id },
        { ...sms, contactId: theirContact.id },
      ],
    });
    expect(batch.status).toBe(202);
    expect(batch.body.data[0]).toMatchObject({ contactId: mine.id });
    expect(batch.body.errors).toEqual([{ index: 1, code: 'NOT_FOUND', message: 'Contact not found' }]);
    expect(await t.deps.db.message.findMany({ where: { orgId }, select: { contactId: true } })).toEqual([{ contactId: mine.id }]);
    expect(await t.deps.db.message.count({ where: { orgId: other.orgId } })).toBe(0);
  });
});

describe('the unsubscribe link with a token of non-ASCII text', () => {
  it('is 404 on GET and POST, never a 500', async () => {
    for (const token of [`con_1.brd_1.${'é'.repeat(43)}`, `con_1.brd_1.${'a'.repeat(42)}ü`, '%F0%9F%98%80']) {
      for (const method of ['GET', 'POST']) {
        const res = await t.app.request(`/u/${encodeURIComponent(token)}`, { method });
        expect([method, token, res.status]).toEqual([method, token, 404]);
      }
    }
  });
});

describe('header injection and look-alike text in an email', () => {
  const RLO = '\u202e';
  const email = (extra: Record<string, unknown>) => ({ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello', ...extra });
  it.each([
    ['a subject with CR/LF', email({ subject: 'Hi\r\nBcc: evil@example.com' }), 'subject: must not contain line breaks'],
    ['a subject with a bare LF', email({ subject: 'Hi\nthere' }), 'subject: must not contain line breaks'],
    [
      'a right-to-left override in an attachment filename',
      email({ attachments: [{ filename: `invoice${RLO}fdp.exe`, content: 'aGk=' }] }),
      'attachments.0.filename: must not contain bidirectional',
    ],
    ['a bidi isolate in Sender', email({ headers: { Sender: `ceo\u2066@example.com` } }), 'headers.Sender: must not contain bidirectional'],
    ['a right-to-left override in Return-Path', email({ headers: { 'Return-Path': `<a${RLO}moc.example@x.test>` } }), 'headers.Return-Path: must not contain bidirectional'],
    ['a right-to-left override in from', email({ from: `Support${RLO} <hello@example.com>` }), 'from: must not contain bidirectional'],
  ])('refuses %s with a 400 naming the field', async (_name, body, message) => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('refuses a template subject with a line break', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/templates', { name: 'x', channelType: 'email', subject: 'Hi\r\nBcc: evil@example.com', text: 'Hello' });
    expect(res).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', message: expect.stringContaining('subject: must not contain line breaks') } });
  });
});
