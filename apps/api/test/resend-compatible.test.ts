import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { insertApiKey, newId } from '@tidings/core';
import { Resend } from 'resend';
import { setupApi } from './setup.ts';

// The official `resend` package, unchanged, pointed at Tidings with RESEND_BASE_URL (read when a client is made),
// against the API served over loopback HTTP.
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '10000' });
let server: ReturnType<typeof serve>;
let baseUrl: string;

beforeAll(async () => {
  server = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/** A Resend client for `key`, made as an app would make it: RESEND_BASE_URL set in its environment. */
function resendClient(key: string): Resend {
  process.env.RESEND_BASE_URL = baseUrl;
  try {
    return new Resend(key);
  } finally {
    delete process.env.RESEND_BASE_URL;
  }
}

async function testOrg() {
  const org = await t.org({ mode: 'test' });
  return { ...org, resend: resendClient(org.key) };
}

const countMessages = (orgId: string) => t.deps.db.message.count({ where: { orgId } });

describe('the resend SDK against Tidings', () => {
  it('emails.send with html, text, cc, bcc, reply_to, attachments, tags and headers makes one Tidings message with all of them', async () => {
    const { api, resend } = await testOrg();
    const { data, error } = await resend.emails.send({
      from: 'Acme <hello@acme.example>',
      to: 'ada@example.com',
      cc: ['billing@example.com', 'boss@example.com'],
      bcc: 'audit@example.com',
      replyTo: ['support@example.com'],
      subject: 'Your invoice',
      html: '<p>Invoice attached <img src="cid:logo"></p>',
      text: 'Invoice attached',
      headers: { 'X-Entity-Ref-ID': 'invoice-1042' },
      attachments: [
        { filename: 'invoice.txt', content: Buffer.from('Invoice 1042'), contentType: 'text/plain' },
        { filename: 'logo.png', content: Buffer.from([137, 80, 78, 71]).toString('base64'), contentId: 'logo' },
      ],
      tags: [{ name: 'category', value: 'billing' }],
    });
    expect(error).toBeNull();
    expect(data).toEqual({ id: expect.stringMatching(/^msg_/) });

    const message = (await api.get(`/v1/messages/${data!.id}`)).body;
    expect(message).toMatchObject({
      channelType: 'email',
      to: 'ada@example.com',
      from: 'Acme <hello@acme.example>',
      cc: ['billing@example.com', 'boss@example.com'],
      bcc: ['audit@example.com'],
      replyTo: ['support@example.com'],
      subject: 'Your invoice',
      html: '<p>Invoice attached <img src="cid:logo"></p>',
      text: 'Invoice attached',
      headers: { 'X-Entity-Ref-ID': 'invoice-1042' },
      tags: ['category:billing'],
      mode: 'test',
    });
    expect(message.attachments).toEqual([
      expect.objectContaining({ filename: 'invoice.txt', contentType: 'text/plain', size: 12, contentId: null }),
      expect.objectContaining({ filename: 'logo.png', contentType: 'image/png', size: 4, contentId: 'logo' }),
    ]);

    const got = await resend.emails.get(data!.id);
    expect(got.error).toBeNull();
    expect(got.data).toEqual({
      object: 'email',
      id: data!.id,
      to: ['ada@example.com'],
      from: 'Acme <hello@acme.example>',
      created_at: message.createdAt,
      subject: 'Your invoice',
      html: '<p>Invoice attached <img src="cid:logo"></p>',
      text: 'Invoice attached',
      cc: ['billing@example.com', 'boss@example.com'],
      bcc: ['audit@example.com'],
      reply_to: ['support@example.com'],
      last_event: 'queued',
      scheduled_at: null,
      tags: [{ name: 'category', value: 'billing' }],
    });
  });

  it('batch.send accepts every email or, strict by default, none; permissive sends the valid ones and names the others', async () => {
    const { orgId, api, resend } = await testOrg();
    const email = (to: string) => ({ from: 'hello@acme.example', to, subject: 'Welcome', text: `Welcome, ${to}` });

    const batch = await resend.batch.send([email('ada@example.com'), email('grace@example.com')]);
    expect(batch.error).toBeNull();
    expect(batch.data!.data).toHaveLength(2);
    const tos = await Promise.all(batch.data!.data.map(async ({ id }) => (await api.get(`/v1/messages/${id}`)).body.to));
    expect(tos).toEqual(['ada@example.com', 'grace@example.com']);

    const before = await countMessages(orgId);
    const strict = await resend.batch.send([email('linus@example.com'), email('not an address')]);
    expect(strict.data).toBeNull();
    expect(strict.error).toMatchObject({ statusCode: 400, name: 'validation_error', message: 'emails.1.to: must be a valid email address for channelType email' });
    expect(await countMessages(orgId)).toBe(before);

    const permissive = await resend.batch.send([email('not an address'), email('linus@example.com')], { batchValidation: 'permissive' });
    expect(permissive.error).toBeNull();
    expect(permissive.data!.data).toHaveLength(1);
    expect(permissive.data!.errors).toEqual([{ index: 0, message: expect.stringMatching(/^to: /) }]);
    expect((await api.get(`/v1/messages/${permissive.data!.data[0]!.id}`)).body.to).toBe('linus@example.com');
    expect(await countMessages(orgId)).toBe(before + 1);
  });

  it('emails.update moves a scheduled email (its delayed job too) and emails.cancel cancels it', async () => {
    const { resend } = await testOrg();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Later', text: 'Later', scheduledAt: inAnHour });
    const id = sent.data!.id;
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'scheduled', scheduled_at: inAnHour });

    // a time in the past is a mistake, refused as message.send refuses it, and the email stays scheduled
    const past = await resend.emails.update({ id, scheduledAt: '1999-01-01T00:00:00Z' });
    expect(past.error).toEqual({
      statusCode: 400,
      name: 'validation_error',
      message: 'scheduled_at: 1999-01-01T00:00:00.000Z is in the past; give a time from now up to 30 days ahead',
    });
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'scheduled', scheduled_at: inAnHour });
    const pastSend = await resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Then', text: 'Then', scheduledAt: '1999-01-01T00:00:00Z' });
    expect(pastSend.error?.statusCode).toBe(400);

    const inTenMinutes = new Date(Date.now() + 600_000).toISOString();
    const updated = await resend.emails.update({ id, scheduledAt: inTenMinutes });
    expect(updated).toMatchObject({ data: { object: 'email', id }, error: null });
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'scheduled', scheduled_at: inTenMinutes });
    // earlier than before: the job that would have waited an hour is replaced by one due at the new time
    const job = await t.deps.queues.email.getJob(id);
    expect(job!.timestamp + job!.delay).toBeGreaterThan(Date.parse(inTenMinutes) - 5_000);
    expect(job!.timestamp + job!.delay).toBeLessThan(Date.parse(inTenMinutes) + 5_000);

    const canceled = await resend.emails.cancel(id);
    expect(canceled).toMatchObject({ data: { object: 'email', id }, error: null });
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'canceled' });
    const again = await resend.emails.update({ id, scheduledAt: inAnHour });
    expect(again.error).toEqual({ statusCode: 409, name: 'validation_error', message: 'Message is canceled: only scheduled messages can be rescheduled' });
  });

  it("errors carry Resend's shape: a validation error, a bad key, a missing key and a missing id", async () => {
    const { resend } = await testOrg();
    const invalid = await resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', text: 'Hi', replyTo: 'nope' });
    expect(invalid).toMatchObject({ data: null, error: { statusCode: 400, name: 'validation_error', message: 'reply_to.0: must be a valid email address' } });

    const badKey = await resendClient('sk_test_not_a_real_key').emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
    expect(badKey).toMatchObject({ data: null, error: { statusCode: 401, name: 'invalid_api_key', message: 'Invalid API key: unknown, disabled, rotated out or deleted' } });

    const noKey = await fetch(`${baseUrl}/emails/${newId('msg')}`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ statusCode: 401, name: 'missing_api_key', message: 'Missing Authorization header: send "Authorization: Bearer <API key>"' });

    const missing = await resend.emails.get(newId('msg'));
    expect(missing).toMatchObject({ data: null, error: { statusCode: 404, name: 'not_found', message: 'Message not found' } });
  });
});

describe('POST /emails and friends, beside /v1', () => {
  it('sends one email to several addresses in `to` (GET answers them all), and refuses more than 50 recipients with a validation_error, storing nothing', async () => {
    const { orgId, api } = await t.org({ mode: 'test' });
    const sent = await api.post('/emails', { from: 'hello@acme.example', to: ['ada@example.com', 'Grace@example.com'], subject: 'Hi', text: 'Hi' });
    expect(sent.status).toBe(200);
    expect((await api.get(`/emails/${sent.body.id}`)).body.to).toEqual(['ada@example.com', 'grace@example.com']);
    const many = Array.from({ length: 50 }, (_, i) => `r${i}@example.com`);
    const res = await api.post('/emails', { from: 'hello@acme.example', to: many, cc: ['one@example.com'], subject: 'Hi', text: 'Hi' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, name: 'validation_error', message: expect.stringContaining('at most 50 recipients') });
    expect(await countMessages(orgId)).toBe(1);
  });

  it('honours Idempotency-Key: the same body replays the same id, another body is invalid_idempotent_request', async () => {
    const { orgId, resend } = await testOrg();
    const email = { from: 'hello@acme.example', to: 'ada@example.com', subject: 'Once', text: 'Once' };
    const first = await resend.emails.send(email, { idempotencyKey: 'order-42' });
    const second = await resend.emails.send(email, { idempotencyKey: 'order-42' });
    expect(second.data).toEqual(first.data);
    expect(second.headers?.['idempotent-replayed']).toBe('true');
    const other = await resend.emails.send({ ...email, text: 'Twice' }, { idempotencyKey: 'order-42' });
    expect(other.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });
    expect(await countMessages(orgId)).toBe(1);
    // a refusal is stored and replayed too, still in Resend's shape
    const refused = await resend.emails.send({ ...email, to: 'nope' }, { idempotencyKey: 'order-43' });
    const replayed = await resend.emails.send({ ...email, to: 'nope' }, { idempotencyKey: 'order-43' });
    expect(replayed.error).toEqual(refused.error);
    expect(replayed.error).toMatchObject({ statusCode: 400, name: 'validation_error', message: expect.stringMatching(/^to: /) });
    expect(replayed.headers?.['idempotent-replayed']).toBe('true');
  });

  it("another organization's email id is not_found for get, update and cancel, and nothing of theirs changes", async () => {
    const owner = await testOrg();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const { id } = (await owner.resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Mine', text: 'Mine', scheduledAt: inAnHour })).data!;
    const stranger = await testOrg();
    for (const answer of [
      await stranger.resend.emails.get(id),
      await stranger.resend.emails.update({ id, scheduledAt: new Date(Date.now() + 60_000).toISOString() }),
      await stranger.resend.emails.cancel(id),
    ]) {
      expect(answer).toMatchObject({ data: null, error: { statusCode: 404, name: 'not_found', message: 'Message not found' } });
    }
    expect((await owner.resend.emails.get(id)).data).toMatchObject({ last_event: 'scheduled', scheduled_at: inAnHour });
  });

  it("a test key neither reads nor changes the same organization's live emails (404)", async () => {
    const live = await t.org({ mode: 'live' });
    await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: live.orgId, name: 'acme.example', status: 'verified', provider: 'sandbox', records: [] } });
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const { id } = (await resendClient(live.key).emails.send({ from: 'hello@acme.example', to: 'ada@example.com', subject: 'Live', text: 'Live', scheduledAt: inAnHour })).data!;
    const testKey = await insertApiKey(t.deps.db, live.orgId, { name: 'test', permission: 'full', mode: 'test' });
    const test = resendClient(testKey.key);
    expect((await test.emails.get(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await test.emails.update({ id, scheduledAt: new Date(Date.now() + 60_000).toISOString() })).error).toMatchObject({ statusCode: 404 });
    expect((await test.emails.cancel(id)).error).toMatchObject({ statusCode: 404 });
    expect(await t.deps.db.message.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'scheduled', scheduledAt: new Date(inAnHour), mode: 'live' });
  });

  it('an SMS is not an email: GET /emails/{id} of one is not_found', async () => {
    const { api } = await t.org({ mode: 'test' });
    const sms = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'hi' })).body;
    const res = await api.get(`/emails/${sms.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, name: 'not_found', message: 'Message not found' });
  });

  it('a sending key may send, batch, read, reschedule and cancel emails, as with Resend; a method the path lacks is method_not_allowed', async () => {
    const { orgId } = await t.org({ mode: 'test' });
    const sending = await insertApiKey(t.deps.db, orgId, { name: 'sending', permission: 'sending', mode: 'test' });
    const resend = resendClient(sending.key);
    const email = { from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', text: 'Hi', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() };
    const { data } = await resend.emails.send(email);
    expect((await resend.emails.get(data!.id)).data).toMatchObject({ id: data!.id });
    expect((await resend.batch.send([email])).data?.data).toHaveLength(1);
    expect((await resend.emails.update({ id: data!.id, scheduledAt: new Date(Date.now() + 60_000).toISOString() })).error).toBeNull();
    expect((await resend.emails.cancel(data!.id)).error).toBeNull();
    const res = await fetch(`${baseUrl}/emails/${data!.id}`, { method: 'PUT', headers: { authorization: `Bearer ${sending.key}` } });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ statusCode: 405, name: 'method_not_allowed' });
  });

  it('a template by id renders as with message.send; an unknown one is not_found naming it', async () => {
    const { api, resend } = await testOrg();
    const template = (await api.post('/v1/templates', { name: 'Hi', channelType: 'email', subject: 'Hi {{ name }}', text: 'Hello {{ name }}' })).body;
    const { data } = await resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', template: { id: template.id, variables: { name: 'Ada' } } });
    expect((await resend.emails.get(data!.id)).data).toMatchObject({ subject: 'Hi Ada', text: 'Hello Ada' });
    const unknown = await resend.emails.send({ from: 'hello@acme.example', to: 'ada@example.com', template: { id: 'tpl_nope' } });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found', message: 'template.id: Template not found' });
  });

  it('a Resend route Tidings lacks answers in Resend’s shape, so the SDK reads its error', async () => {
    const { resend } = await testOrg();
    const domains = await resend.domains.list();
    expect(domains).toMatchObject({ data: null, error: { statusCode: 404, name: 'not_found', message: 'No route GET /domains' } });
    const audience = await resend.contacts.create({ email: 'ada@example.com', audienceId: 'aud_1' } as Parameters<typeof resend.contacts.create>[0]);
    expect(audience.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });
});
