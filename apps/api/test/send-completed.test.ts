import { databaseAttachmentStore } from '@tidings/core';
import { setupApi } from './setup.ts';

// message.send and message.sendBatch beyond to/subject/html: cc, bcc, replyTo, headers, attachments, mediaUrls,
// nested variables and contactId as the recipient, as the API accepts and stores them (the send-worker's tests take
// them on to the providers).
const t = setupApi();
afterAll(() => t.close());

const email = (extra: Record<string, unknown> = {}) => ({ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello', ...extra });
const sms = (extra: Record<string, unknown> = {}) => ({ channelType: 'sms', to: '+14155550123', body: 'Hello', ...extra });
const stored = async (orgId: string) => ({
  messages: await t.deps.db.message.count({ where: { orgId } }),
  attachments: await t.deps.db.attachmentContent.count({ where: { orgId } }),
});
const readAll = async (stream: NodeJS.ReadableStream | null) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('message.send: recipients and headers', () => {
  it('stores and shows cc, bcc, replyTo and headers (addresses lower-cased, replyTo may carry a name)', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post(
      '/v1/messages',
      email({ cc: ['Bo@Example.com'], bcc: ['cy@example.com', 'di@example.com'], replyTo: 'Support <help@example.com>', headers: { 'X-Entity-Ref-ID': 'inv-1' } }),
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      cc: ['bo@example.com'],
      bcc: ['cy@example.com', 'di@example.com'],
      replyTo: ['Support <help@example.com>'],
      headers: { 'X-Entity-Ref-ID': 'inv-1' },
      mediaUrls: [],
      attachments: [],
    });
    const again = await api.get(`/v1/messages/${res.body.id}`);
    expect(again.body).toMatchObject({ cc: ['bo@example.com'], replyTo: ['Support <help@example.com>'], headers: { 'X-Entity-Ref-ID': 'inv-1' } });
    const list = await api.post('/v1/messages', email({ replyTo: ['a@example.com', 'b@example.com'] }));
    expect(list.body.replyTo).toEqual(['a@example.com', 'b@example.com']);
  });

  it.each([
    ['a reserved header, named', email({ headers: { 'X-Ok': '1', Subject: 'x' } }), /^headers\.Subject: Subject is set by Tidings/],
    ['a Content-* header', email({ headers: { 'content-type': 'text/plain' } }), /^headers\.content-type: content-type is set by Tidings/],
    [
      'an SES message-tags header',
      email({ headers: { 'X-SES-MESSAGE-TAGS': 'tidings_message_id=msg_other' } }),
      /^headers\.X-SES-MESSAGE-TAGS: X-SES-MESSAGE-TAGS instructs the sending provider/,
    ],
    ['an SES configuration-set header', email({ headers: { 'x-ses-configuration-set': 'other' } }), /^headers\.x-ses-configuration-set: x-ses-configuration-set instructs/],
    ['our own SMTP message-id header', email({ headers: { 'X-Tidings-Message-Id': 'msg_other' } }), /^headers\.X-Tidings-Message-Id: X-Tidings-Message-Id instructs/],
    ['an SMTP relay instruction', email({ headers: { 'X-PM-Message-Stream': 'broadcast', 'X-SMTPAPI': '{}' } }), /^headers\.X-PM-Message-Stream: .*instructs/],
    ['a header name with a colon', email({ headers: { 'X:Bad': 'v' } }), /^headers\.X:Bad: must be a header field name/],
    ['a header value with a line break', email({ headers: { 'X-Inject': 'a\r\nBcc: evil@example.com' } }), /^headers\.X-Inject: must not contain line breaks/],
    [
      'more than 50 recipients',
      email({ cc: Array.from({ length: 30 }, (_, i) => `c${i}@example.com`), bcc: Array.from({ length: 20 }, (_, i) => `b${i}@example.com`) }),
      /^cc: to, cc and bcc together must be at most 50 recipients \(got 51\)/,
    ],
    ['a bad cc address, with its index', email({ cc: ['ok@example.com', 'nope'] }), /^cc\.1: must be a valid email address/],
    ['a bad bcc address, with its index', email({ bcc: ['Name <x@example.com>'] }), /^bcc\.0: must be a valid email address/],
    ['a bad replyTo in a list', email({ replyTo: ['a@example.com', 'b@'] }), /^replyTo\.1: must be a valid email address/],
    ['more than 10 replyTo', email({ replyTo: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) }), /^replyTo/],
    ['cc on an SMS', sms({ cc: ['a@example.com'] }), /^cc: not allowed for channelType sms/],
    ['mediaUrls on an email', email({ mediaUrls: ['https://example.com/a.png'] }), /^mediaUrls: not allowed for channelType email/],
    ['an http media URL', sms({ mediaUrls: ['http://example.com/a.png'] }), /^mediaUrls\.0: must be an absolute https URL/],
    ['more than 10 media URLs', sms({ mediaUrls: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`) }), /^mediaUrls/],
  ])('refuses %s with a 400 naming it, storing nothing', async (_name, body, message) => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message).toMatch(message);
    expect(await stored(orgId)).toEqual({ messages: 0, attachments: 0 });
  });

  it('takes mediaUrls on an SMS', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', sms({ mediaUrls: ['https://example.com/cat.png'] }));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ mediaUrls: ['https://example.com/cat.png'], cc: [], attachments: [], segments: 1 });
  });
});

describe('message.send: attachments', () => {
  it('stores the decoded bytes once outside the message, and shows only metadata', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const pdf = Buffer.from('%PDF-1.4 not really');
    const res = await api.post(
      '/v1/messages',
      email({
        html: '<p><img src="cid:logo"></p>',
        attachments: [
          { filename: 'invoice.pdf', content: pdf.toString('base64') },
          { filename: 'logo.png', content: Buffer.from([137, 80, 78, 71]).toString('base64'), contentId: 'logo' },
          { filename: 'data.bin', content: '', contentType: 'application/x-custom' },
        ],
      }),
    );
    expect(res.status).toBe(202);
    const [invoice, logo, empty] = res.body.attachments;
    expect(invoice).toEqual({ id: expect.stringMatching(/^att_/), filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, contentId: null });
    expect(logo).toMatchObject({ filename: 'logo.png', contentType: 'image/png', size: 4, contentId: 'logo' });
    expect(empty).toMatchObject({ contentType: 'application/x-custom', size: 0 });
    expect(JSON.stringify(res.body)).not.toContain(pdf.toString('base64'));

    const store = databaseAttachmentStore(t.deps);
    expect(await readAll(await store.open(orgId, invoice.id))).toEqual(pdf);
    // another organization cannot read it
    const other = await t.org({ mode: 'test' });
    expect(await store.open(other.orgId, invoice.id)).toBeNull();

    // never in the job, the queued event or the webhook payload
    const job = await t.deps.queues.email.getJob(res.body.id);
    expect(job?.data).toEqual({ messageId: res.body.id });
    const events = await t.deps.db.event.findMany({ where: { orgId } });
    expect(JSON.stringify(events)).not.toContain(pdf.toString('base64'));
    expect((events[0]!.data as { attachments: unknown[] }).attachments).toEqual(res.body.attachments);
  });

  it('keeps a path attachment to fetch at send time, without showing its URL', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    // an IP literal: no DNS involved, and a public address (nothing connects to it at accept time)
    const res = await api.post('/v1/messages', email({ attachments: [{ filename: 'report.csv', path: 'https://93.184.215.14/report.csv?token=secret' }] }));
    expect(res.status).toBe(202);
    expect(res.body.attachments).toEqual([{ id: expect.stringMatching(/^att_/), filename: 'report.csv', contentType: 'text/csv', size: null, contentId: null }]);
    expect(JSON.stringify(res.body)).not.toContain('secret');
    expect(await stored(orgId)).toEqual({ messages: 1, attachments: 0 });
  });

  it.each([
    ['base64 that does not decode', [{ filename: 'a.txt', content: 'not base64!' }], /^attachments\.0\.content: must be base64/],
    [
      'base64 of a wrong length',
      [
        { filename: 'a.txt', content: 'QUJD' },
        { filename: 'b.txt', content: 'QUJ' },
      ],
      /^attachments\.1\.content: must be base64/,
    ],
    ['base64 with padding inside', [{ filename: 'a.txt', content: 'QU=DQUJD' }], /^attachments\.0\.content: must be base64/],
    ['base64 with three padding characters', [{ filename: 'a.txt', content: 'Q===' }], /^attachments\.0\.content: must be base64/],
    ['both content and path', [{ filename: 'a.txt', content: 'QUJD', path: 'https://93.184.215.14/a' }], /^attachments\.0: give exactly one of content or path/],
    ['neither content nor path', [{ filename: 'a.txt' }], /^attachments\.0: give exactly one of content or path/],
    [
      'a path that is not https',
      [
        { filename: 'a.txt', content: 'QUJD' },
        { filename: 'b.txt', path: 'http://93.184.215.14/b' },
      ],
      /^attachments\.1\.path: must be an absolute https URL/,
    ],
    ['a path to a private address', [{ filename: 'a.txt', path: 'https://10.0.0.7/a' }], /^attachments\.0\.path: 10\.0\.0\.7 resolves to a non-public address \(private\)/],
    ['a path to loopback', [{ filename: 'a.txt', path: 'https://127.0.0.1/a' }], /^attachments\.0\.path: 127\.0\.0\.1 resolves to a non-public address \(loopback\)/],
    ['a path to cloud metadata', [{ filename: 'a.txt', path: 'https://169.254.169.254/latest' }], /^attachments\.0\.path: .*cloud metadata/],
    ['a filename with a slash', [{ filename: '../etc/passwd', content: 'QUJD' }], /^attachments\.0\.filename: must not contain control characters or slashes/],
    [
      'a repeated contentId',
      [
        { filename: 'a.png', content: 'QUJD', contentId: 'x' },
        { filename: 'b.png', content: 'QUJD', contentId: 'x' },
      ],
      /^attachments\.1\.contentId: x is used by another attachment/,
    ],
    ['more than 20', Array.from({ length: 21 }, (_, i) => ({ filename: `${i}.txt`, content: 'QUJD' })), /^attachments: Too big/],
    ['an unknown field', [{ filename: 'a.txt', content: 'QUJD', encoding: 'base64' }], /^attachments\.0\.encoding: unknown field/],
  ])('refuses %s with a 400 naming the field and index, storing nothing', async (_name, attachments, message) => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', email({ attachments }));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await stored(orgId)).toEqual({ messages: 0, attachments: 0 });
  });

  it('refuses attachments on an SMS', async () => {
    const { api } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages', sms({ attachments: [{ filename: 'a.txt', content: 'QUJD' }] }));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^attachments: not allowed for channelType sms/);
  });

  it('in a batch, a bad attachment fails only its item; the good items and their bytes are stored', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const res = await api.post('/v1/messages/batch', {
      messages: [
        email({ attachments: [{ filename: 'a.txt', content: Buffer.from('first').toString('base64') }] }),
        email({ attachments: [{ filename: 'b.txt', path: 'https://192.168.1.1/b' }] }),
        email({ cc: ['x@example.com', 'bad'] }),
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.errors).toEqual([
      { index: 1, code: 'BAD_REQUEST', message: expect.stringMatching(/^attachments\.0\.path: /) },
      { index: 2, code: 'BAD_REQUEST', message: 'cc.1: must be a valid email address' },
    ]);
    expect(res.body.data[0].attachments[0]).toMatchObject({ filename: 'a.txt', size: 5 });
    expect(await stored(orgId)).toEqual({ messages: 1, attachments: 1 });
  });
});

describe('body limits', () => {
  let small: ReturnType<typeof setupApi>;
  beforeAll(() => {
    small = setupApi({ BODY_LIMIT_BYTES: '2048', SEND_BODY_LIMIT_BYTES: '65536' });
  });
  afterAll(() => small.close());

  it('lets the two send endpoints take SEND_BODY_LIMIT_BYTES while every other endpoint keeps BODY_LIMIT_BYTES', async () => {
    const { api, orgId } = await small.org({ mode: 'test' });
    const content = Buffer.alloc(30_000, 1).toString('base64'); // 40 KB of JSON: over 2 KiB, under 64 KiB
    const send = await api.post('/v1/messages', email({ attachments: [{ filename: 'a.bin', content }] }));
    expect(send.status).toBe(202);
    const batch = await api.post('/v1/messages/batch', { messages: [email({ attachments: [{ filename: 'a.bin', content }] })] });
    expect(batch.status).toBe(202);
    const contact = await api.post('/v1/contacts', { email: 'big@example.com', attributes: { blob: 'x'.repeat(4000) } });
    expect(contact.status).toBe(413);
    const tooBig = await api.post('/v1/messages', email({ attachments: [{ filename: 'a.bin', content: Buffer.alloc(60_000).toString('base64') }] }));
    expect(tooBig.status).toBe(413);
    expect(await small.deps.db.attachmentContent.count({ where: { orgId } })).toBe(2);
  });
});

describe('the 40 MiB cap', () => {
  // 40 MiB decoded is 53.3 MiB of base64: more than the default SEND_BODY_LIMIT_BYTES lets in, so raise it here
  let roomy: ReturnType<typeof setupApi>;
  beforeAll(() => {
    roomy = setupApi({ SEND_BODY_LIMIT_BYTES: String(60 * 1024 * 1024) });
  });
  afterAll(() => roomy.close());

  it('refuses attachments over 40 MiB decoded together, storing nothing', async () => {
    const { api, orgId } = await roomy.org({ mode: 'test' });
    const half = Buffer.alloc(20 * 1024 * 1024 + 1, 7).toString('base64');
    const res = await api.post(
      '/v1/messages',
      email({
        attachments: [
          { filename: 'a.bin', content: half },
          { filename: 'b.bin', content: half },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`attachments: at most ${40 * 1024 * 1024} bytes decoded per message (got ${40 * 1024 * 1024 + 2})`);
    expect(await roomy.deps.db.message.count({ where: { orgId } })).toBe(0);
    expect(await roomy.deps.db.attachmentContent.count({ where: { orgId } })).toBe(0);
  });
});

describe('contactId as the recipient', () => {
  it('fills to from the contact (email or phone by channel); with to they must agree', async () => {
    const { api } = await t.org({ mode: 'test' });
    const contact = (await api.post('/v1/contacts', { email: 'Ada@Example.com', phone: '+14155550199' })).body;
    const byEmail = await api.post('/v1/messages', { channelType: 'email', contactId: contact.id, subject: 'Hi', text: 'x' });
    expect(byEmail.status).toBe(202);
    expect(byEmail.body).toMatchObject({ to: 'ada@example.com', contactId: contact.id });
    const bySms = await api.post('/v1/messages', { channelType: 'sms', contactId: contact.id, body: 'x' });
    expect(bySms.body).toMatchObject({ to: '+14155550199', contactId: contact.id });
    const agreeing = await api.post('/v1/messages', { channelType: 'email', to: 'ADA@example.com', contactId: contact.id, subject: 'Hi', text: 'x' });
    expect(agreeing.status).toBe(202);

    const disagreeing = await api.post('/v1/messages', { channelType: 'email', to: 'bo@example.com', contactId: contact.id, subject: 'Hi', text: 'x' });
    expect(disagreeing.status).toBe(400);
    expect(disagreeing.body.message).toBe("to: does not match the contact's email address (give one of them, or both agreeing; an array must include it)");
  });

  it("refuses a contact without that channel, a send with neither, and another organization's contact (404, nothing stored)", async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const emailOnly = (await api.post('/v1/contacts', { email: 'only@example.com' })).body;
    const noPhone = await api.post('/v1/messages', { channelType: 'sms', contactId: emailOnly.id, body: 'x' });
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.message).toBe('contactId: the contact has no phone number; give to');
    const neither = await api.post('/v1/messages', { channelType: 'sms', body: 'x' });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toMatch(/^to: required/);

    const other = await t.org({ mode: 'test' });
    const theirs = (await other.api.post('/v1/contacts', { email: 'theirs@example.com' })).body;
    const foreign = await api.post('/v1/messages', { channelType: 'email', contactId: theirs.id, subject: 'Hi', text: 'x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 'NOT_FOUND', message: 'Contact not found' });
    const batch = await api.post('/v1/messages/batch', { messages: [{ channelType: 'email', contactId: theirs.id, subject: 'Hi', text: 'x' }] });
    expect(batch.body.errors).toEqual([{ index: 0, code: 'NOT_FOUND', message: 'Contact not found' }]);
    expect(await stored(orgId)).toEqual({ messages: 0, attachments: 0 });
  });
});

describe('nested variables', () => {
  it("sends the README's {{ order.number }} example, exactly as template.preview renders it", async () => {
    const { api } = await t.org({ mode: 'test' });
    const template = (
      await api.post('/v1/templates', {
        name: 'receipt',
        channelType: 'email',
        subject: 'Order {{ order.number }}',
        html: '<p>Thanks {{ customer.name }}, order {{ order.number }} ({{ order.items[0].sku }})</p>',
      })
    ).body;
    const variables = { order: { number: 1042, items: [{ sku: 'A-1' }] }, customer: { name: '<Ada>' } };
    const preview = await api.post(`/v1/templates/${template.id}/preview`, { variables });
    expect(preview.status).toBe(200);
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', templateId: template.id, variables });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ subject: 'Order 1042', html: '<p>Thanks &lt;Ada&gt;, order 1042 (A-1)</p>' });
    expect(sent.body.html).toBe(preview.body.html);
    const batch = await api.post('/v1/messages/batch', { messages: [{ channelType: 'email', to: 'bo@example.com', templateId: template.id, variables }] });
    expect(batch.body.data[0].subject).toBe('Order 1042');
  });

  const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
  const manyKeys = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, { x: 1 }]));
  it.each([
    ['nested deeper than 5 levels', deep, /^variables\.a\.b\.c\.d\.e: nested deeper than 5 levels/],
    ['more than 100 keys in all', manyKeys, /^variables: at most 100 keys in all/],
    ['over 64 KiB as JSON', { big: 'x'.repeat(65 * 1024) }, /^variables: at most 65536 bytes as JSON/],
  ])('refuses variables %s, the same on send, batch and preview', async (_name, variables, message) => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const template = (await api.post('/v1/templates', { name: 't', channelType: 'sms', body: 'hi' })).body;
    const send = await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', templateId: template.id, variables });
    expect(send.status).toBe(400);
    expect(send.body.message).toMatch(message);
    const batch = await api.post('/v1/messages/batch', { messages: [{ channelType: 'sms', to: '+14155550123', templateId: template.id, variables }] });
    expect(batch.body.errors[0].message).toMatch(message);
    const preview = await api.post(`/v1/templates/${template.id}/preview`, { variables });
    expect(preview.status).toBe(400);
    expect(preview.body.message).toMatch(message);
    expect(await stored(orgId)).toEqual({ messages: 0, attachments: 0 });
  });
});

describe("a template's replyTo", () => {
  const template = { name: 'receipt', channelType: 'email', subject: 'Receipt {{ n }}', text: 'Thanks for order {{ n }}' };

  it('is stored on the template, used by sends with it unless they give their own, and versioned with it', async () => {
    const { api } = await t.org({ mode: 'test' });
    const created = await api.post('/v1/templates', { ...template, replyTo: 'Billing <Billing@Example.com>' });
    expect(created.status).toBe(201);
    expect(created.body.replyTo).toEqual(['Billing <Billing@Example.com>']);

    const withTemplate = (extra: Record<string, unknown> = {}) => ({ channelType: 'email', to: 'ada@example.com', templateId: created.body.id, variables: { n: 7 }, ...extra });
    const sent = await api.post('/v1/messages', withTemplate());
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ subject: 'Receipt 7', replyTo: ['Billing <Billing@Example.com>'] });
    const overridden = await api.post('/v1/messages', withTemplate({ replyTo: 'me@example.com' }));
    expect(overridden.body.replyTo).toEqual(['me@example.com']);
    const batch = await api.post('/v1/messages/batch', { messages: [withTemplate(), withTemplate({ replyTo: ['x@example.com', 'y@example.com'] })] });
    expect(batch.status).toBe(202);
    expect(batch.body.data.map((m: { replyTo: string[] }) => m.replyTo)).toEqual([['Billing <Billing@Example.com>'], ['x@example.com', 'y@example.com']]);

    // null removes it in version 2; a send naming version 1 still gets version 1's
    const updated = await api.patch(`/v1/templates/${created.body.id}`, { replyTo: null });
    expect(updated.body).toMatchObject({ version: 2, replyTo: [] });
    expect((await api.post('/v1/messages', withTemplate())).body.replyTo).toEqual([]);
    expect((await api.post('/v1/messages', withTemplate({ templateVersion: 1 }))).body.replyTo).toEqual(['Billing <Billing@Example.com>']);
  });

  it('is refused naming the field: a bad address, more than 10, or on an sms template', async () => {
    const { api } = await t.org({ mode: 'test' });
    const bad = await api.post('/v1/templates', { ...template, replyTo: ['ok@example.com', 'not an address'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^replyTo\.1: /);
    const many = await api.post('/v1/templates', { ...template, replyTo: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) });
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/replyTo/);
    const onSms = await api.post('/v1/templates', { name: 'otp', channelType: 'sms', body: 'Code {{ code }}', replyTo: 'a@example.com' });
    expect(onSms.status).toBe(400);
    expect(onSms.body.message).toMatch(/replyTo/);
  });
});
