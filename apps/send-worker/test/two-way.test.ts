import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { newId } from '@tidings/core';
import { serveHttp, signResendCallback, signTelnyxCallback, startWebhookReceiver, type RunningServer, type WebhookReceiver } from '@tidings/testing';
import { startWebhookWorker } from '@tidings/webhook-worker';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { RESEND_WEBHOOK_SECRET, messageOnceIn, startPipeline, waitFor } from './harness.ts';

const HELP_TEXT = 'Acme alerts: reply STOP to opt out, START to opt back in.';

// The whole two-way loop over real HTTP: the fakes post signed callbacks to the API's real callback endpoints, the
// send-worker sends through the real SDKs, the webhook-worker delivers events to a real receiver.
let h: Awaited<ReturnType<typeof startPipeline>>;
let server: RunningServer;
let webhookWorker: ReturnType<typeof startWebhookWorker>;
let receiver: WebhookReceiver;
beforeAll(async () => {
  h = await startPipeline({ SMS_HELP_TEXT: HELP_TEXT, WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,50', WEBHOOK_TIMEOUT_MS: '1000' });
  await h.startWorker();
  server = await serveHttp(h.app.fetch);
  h.resend.sendCallbacksTo(`${server.url}/v1/provider-events/resend`, RESEND_WEBHOOK_SECRET);
  h.telnyx.sendCallbacksTo(`${server.url}/v1/provider-events/telnyx`, h.telnyxKeys.privateKey);
  h.telnyx.state.handlesKeywords = false; // Tidings answers STOP and START itself
  webhookWorker = startWebhookWorker(h.deps);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await webhookWorker.close();
  await receiver.close();
  await server.close();
  await h.close();
});
beforeEach(() => receiver.reset());

type Api = Awaited<ReturnType<typeof h.testOrg>>['api'];
type Org = Awaited<ReturnType<typeof h.testOrg>>;
const get = async (api: Api, id: string) => (await api.get(`/v1/messages/${id}`)).body;
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 10_000);
const history = (m: { events: { status: string }[] }) => m.events.map((e) => e.status);
/** A valid US mobile-style number no other test uses. */
const uniquePhone = () => `+1415${String(2_000_000 + Math.floor(Math.random() * 7_000_000))}`;
/** A live organization whose default number is a valid one (the harness's are not, and a HELP reply is sent from it). */
async function liveOrgWithNumber() {
  const org = await h.liveOrg();
  const ours = uniquePhone();
  await h.deps.db.phoneNumber.updateMany({ where: { orgId: org.orgId }, data: { number: ours } });
  return { ...org, ours };
}
const smsRequestsTo = (to: string) => h.telnyx.requests.filter((r) => r.path === '/v2/messages' && r.body?.to === to);

/** A webhook of `org` to the receiver for `events`; returns its id and a verifier of what it receives. */
async function subscribe(org: Org, events: string[]) {
  const { body } = await org.api.post('/v1/webhooks', { url: `${receiver.url}/hooks/${org.orgId}`, events });
  const verifier = new StandardWebhook(body.secret);
  const received = () =>
    receiver.requests
      .filter((r) => r.path === `/hooks/${org.orgId}`)
      .map((r) => ({ headers: r.headers, event: verifier.verify(r.body, r.headers) as { id: string; type: string; data: any } }));
  const waitForEvent = (type: string, match: (data: any) => boolean = () => true) =>
    waitFor(async () => received().find((r) => r.event.type === type && match(r.event.data)), 10_000, `webhook event ${type}`);
  return { id: body.id as string, received, waitForEvent };
}

describe('inbound SMS and the STOP/START/HELP keywords (Telnyx, signed callbacks)', () => {
  it('STOP suppresses the number and the next send fails SUPPRESSED without a provider call; START lifts it; HELP is answered', async () => {
    const org = await liveOrgWithNumber();
    const { ours } = org;
    const phone = uniquePhone();
    const contact = (await org.api.post('/v1/contacts', { phone, firstName: 'Ada' })).body;
    const hooks = await subscribe(org, ['message.received', 'contact.unsubscribed']);

    expect(await h.telnyx.receiveSms({ from: phone, to: ours, text: '  stop ' })).toBe(200);
    const inbound = (await org.api.get('/v1/messages?direction=inbound')).body.data;
    expect(inbound).toHaveLength(1);
    expect(inbound[0]).toMatchObject({ direction: 'inbound', status: 'received', from: phone, to: ours, body: '  stop ', contactId: contact.id, provider: 'telnyx' });
    expect((await org.api.get(`/v1/contacts/${contact.id}`)).body.smsSubscribed).toBe(false);
    const suppressions = (await org.api.get('/v1/suppressions?channelType=sms')).body.data;
    expect(suppressions).toEqual([expect.objectContaining({ address: phone, reason: 'stopped', channelType: 'sms' })]);
    expect((await hooks.waitForEvent('contact.unsubscribed')).event.data).toMatchObject({ id: contact.id, smsSubscribed: false });
    expect((await hooks.waitForEvent('message.received')).event.data).toMatchObject({ id: inbound[0].id, direction: 'inbound' });
    // outbound messages are not in the inbound list, and the other filter value shows only outbound ones: the STOP
    // confirmation
    const outbound = (await org.api.get('/v1/messages?direction=outbound')).body.data;
    expect(outbound.map((m: { metadata: unknown }) => m.metadata)).toEqual([{ inReplyTo: inbound[0].id }]);

    const blocked = (await org.api.post('/v1/messages', { channelType: 'sms', to: phone, body: 'Sale today' })).body;
    const failed = await until(org.api, blocked.id, ['failed']);
    expect(failed.error.code).toBe('SUPPRESSED');
    expect(history(failed)).toEqual(['queued', 'failed']);
    expect(smsRequestsTo(phone).map((r) => r.body.text)).not.toContain('Sale today');

    expect(await h.telnyx.receiveSms({ from: phone, to: ours, text: 'START' })).toBe(200);
    expect((await org.api.get('/v1/suppressions?channelType=sms')).body.data).toEqual([]);
    expect((await org.api.get(`/v1/contacts/${contact.id}`)).body.smsSubscribed).toBe(true);
    const allowed = (await org.api.post('/v1/messages', { channelType: 'sms', to: phone, body: 'Welcome back' })).body;
    await until(org.api, allowed.id, ['sent']);
    expect(smsRequestsTo(phone).map((r) => r.body.text)).toContain('Welcome back');

    expect(await h.telnyx.receiveSms({ from: phone, to: ours, text: 'help' })).toBe(200);
    const help = await waitFor(async () => smsRequestsTo(phone).find((r) => r.body.text === HELP_TEXT), 10_000, 'the HELP reply');
    expect(help.body).toMatchObject({ from: ours, to: phone });
    const replies = (await org.api.get(`/v1/messages?direction=outbound&to=${encodeURIComponent(phone)}`)).body.data;
    expect(replies[0]).toMatchObject({ body: HELP_TEXT, contactId: contact.id });
    expect((await org.api.get('/v1/messages?direction=inbound')).body.data.map((m: { body: string }) => m.body)).toEqual(['help', 'START', '  stop ']);
  });

  it('a text that only contains a keyword is no keyword; a number no organization owns is acknowledged and ignored', async () => {
    const org = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId: org.orgId } })).number;
    const phone = uniquePhone();
    expect(await h.telnyx.receiveSms({ from: phone, to: ours, text: 'please stop by tomorrow' })).toBe(200);
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([]);
    const before = await h.deps.db.message.count({ where: { direction: 'inbound' } });
    expect(await h.telnyx.receiveSms({ from: phone, to: '+15005550199', text: 'STOP' })).toBe(200);
    expect(await h.deps.db.message.count({ where: { direction: 'inbound' } })).toBe(before);
  });

  it('a Telnyx 40300 on a send records the same suppression, and the next send never reaches Telnyx', async () => {
    const org = await h.liveOrg();
    const phone = uniquePhone();
    const contact = (await org.api.post('/v1/contacts', { phone })).body;
    h.telnyx.state.stoppedNumbers.add(phone); // they texted STOP to the carrier, not through us
    const first = (await org.api.post('/v1/messages', { channelType: 'sms', to: phone, body: 'Hi' })).body;
    const failed = await until(org.api, first.id, ['failed']);
    expect(failed.error).toMatchObject({ code: 'SUPPRESSED' });
    expect(failed.attempts).toBe(1);
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([expect.objectContaining({ address: phone, reason: 'stopped' })]);
    expect((await org.api.get(`/v1/contacts/${contact.id}`)).body.smsSubscribed).toBe(false);

    const second = (await org.api.post('/v1/messages', { channelType: 'sms', to: phone, body: 'Hi again' })).body;
    expect((await until(org.api, second.id, ['failed'])).error.code).toBe('SUPPRESSED');
    expect(smsRequestsTo(phone)).toHaveLength(1);
  });

  it('unsigned or wrongly signed Telnyx callbacks are 401 and record nothing', async () => {
    const org = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId: org.orgId } })).number;
    const phone = uniquePhone();
    const payload = { data: { event_type: 'message.received', payload: { id: 'in-1', from: { phone_number: phone }, to: [{ phone_number: ours }], text: 'STOP' } } };
    const forged = signTelnyxCallback(generateKeyPairSync('ed25519').privateKey, payload);
    expect((await h.anonymous.post('/v1/provider-events/telnyx', forged.body, forged.headers)).status).toBe(401);
    expect((await h.anonymous.post('/v1/provider-events/telnyx', payload)).status).toBe(401);
    expect((await org.api.get('/v1/messages?direction=inbound')).body.data).toEqual([]);
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([]);
  });
});

describe('inbound email (Resend email.received, Svix-signed)', () => {
  it('becomes an inbound message linked to the contact, with its content read from Resend, and a verified message.received webhook', async () => {
    const org = await h.liveOrg();
    const domain = `in-${randomBytes(4).toString('hex')}.test`;
    await h.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: org.orgId, name: domain, status: 'verified', provider: 'resend', records: [], verifiedAt: new Date() } });
    const contact = (await org.api.post('/v1/contacts', { email: 'ada@example.com' })).body;
    const hooks = await subscribe(org, ['message.received']);

    const { status, id } = await h.resend.receiveEmail({
      from: 'Ada Lovelace <Ada@Example.com>',
      to: `support@${domain}`,
      subject: 'Question',
      text: 'Does it work?',
      html: '<p>Does it work?</p>',
    });
    expect(status).toBe(200);
    const [message] = (await org.api.get('/v1/messages?direction=inbound&channelType=email')).body.data;
    expect(message).toMatchObject({
      direction: 'inbound',
      status: 'received',
      from: 'ada@example.com',
      to: `support@${domain}`,
      subject: 'Question',
      text: 'Does it work?',
      html: '<p>Does it work?</p>',
      contactId: contact.id,
      providerMessageId: id,
    });
    expect(history(await get(org.api, message.id))).toEqual(['received']);
    const { headers, event } = await hooks.waitForEvent('message.received');
    expect(event.data).toMatchObject({ id: message.id, subject: 'Question' });
    expect(headers['webhook-id']).toBe(event.id);

    // Resend sends a callback again when it is unsure we got it: still one message
    const again = signResendCallback(RESEND_WEBHOOK_SECRET, {
      type: 'email.received',
      data: { email_id: id, from: 'ada@example.com', to: [`support@${domain}`], subject: 'Question' },
    });
    expect((await h.anonymous.post('/v1/provider-events/resend', again.body, again.headers)).status).toBe(200);
    expect((await org.api.get('/v1/messages?direction=inbound')).body.data).toHaveLength(1);
  });
});

describe('engagement from Resend', () => {
  it('open, click and complaint arrive as webhooks and in the status history; the status stays delivered; the complaint suppresses', async () => {
    const org = await h.liveOrg();
    const hooks = await subscribe(org, ['message.opened', 'message.clicked', 'message.complained', 'message.delayed']);
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'News', html: '<a href="https://example.com/a">a</a>' })).body;
    const atProvider = await until(org.api, sent.id, ['sent']);
    const emailId = atProvider.providerMessageId;

    expect(await h.resend.emailEvent('email.delivery_delayed', emailId)).toBe(200);
    expect(await h.resend.emailEvent('email.delivered', emailId)).toBe(200);
    expect(await h.resend.emailEvent('email.opened', emailId)).toBe(200);
    expect(
      await h.resend.emailEvent('email.clicked', emailId, {
        click: { link: 'https://example.com/a', ipAddress: '203.0.113.9', timestamp: new Date().toISOString(), userAgent: 'x' },
      }),
    ).toBe(200);
    // a second open is the same reader again: counted once (the first open per message)
    expect(await h.resend.emailEvent('email.opened', emailId)).toBe(200);
    expect(await h.resend.emailEvent('email.complained', emailId)).toBe(200);

    const message = await get(org.api, sent.id);
    expect(message.status).toBe('delivered');
    expect(history(message)).toEqual(['queued', 'sending', 'sent', 'delayed', 'delivered', 'opened', 'clicked', 'complained']);
    expect(message.events.find((e: { status: string }) => e.status === 'clicked').link).toBe('https://example.com/a');
    const opens = message.events.filter((e: { status: string }) => e.status === 'opened');
    expect(message.openedAt).toBe(opens[0].createdAt); // the first open
    expect(message.clickedAt).not.toBeNull();

    expect((await hooks.waitForEvent('message.clicked')).event.data).toMatchObject({ id: sent.id, link: 'https://example.com/a', status: 'delivered' });
    await hooks.waitForEvent('message.opened');
    await hooks.waitForEvent('message.complained');
    await hooks.waitForEvent('message.delayed');
    expect(hooks.received().filter((r) => r.event.type === 'message.opened')).toHaveLength(1);
    expect((await org.api.get('/v1/suppressions?reason=complained')).body.data).toEqual([expect.objectContaining({ address: 'reader@example.com', channelType: 'email' })]);
  });

  it('an engagement callback signed with another secret is 401 and leaves the history as it was', async () => {
    const org = await h.liveOrg();
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'quiet@example.com', subject: 'Hi', text: 'x' })).body;
    const atProvider = await until(org.api, sent.id, ['sent']);
    const forged = signResendCallback(`whsec_${randomBytes(24).toString('base64')}`, { type: 'email.complained', data: { email_id: atProvider.providerMessageId } });
    expect((await h.anonymous.post('/v1/provider-events/resend', forged.body, forged.headers)).status).toBe(401);
    expect(history(await get(org.api, sent.id))).toEqual(['queued', 'sending', 'sent']);
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([]);
  });
});

describe("Tidings' own click tracking beside Resend's", () => {
  it('counts a click once when Resend reports the click on our redirect too', async () => {
    const org = await h.liveOrg();
    const hooks = await subscribe(org, ['message.clicked']);
    const html = '<a href="https://example.com/offer">offer</a>';
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader2@example.com', subject: 'Offer', html, tracking: { clicks: true } })).body;
    const atProvider = await until(org.api, sent.id, ['sent']);
    const request = h.resend.requests.find((r) => r.path === '/emails' && r.body?.subject === 'Offer')!;
    const tracked = /href="([^"]+)"/.exec(String(request.body.html))![1]!;
    expect(tracked.startsWith(`${h.deps.config.publicApiUrl}/c/`)).toBe(true);

    // the reader clicks Resend's wrapper, which goes through ours: both record it
    const redirect = await h.app.request(tracked.slice(h.deps.config.publicApiUrl.length));
    expect(redirect.headers.get('location')).toBe('https://example.com/offer');
    const click = { link: tracked, ipAddress: '203.0.113.9', timestamp: new Date().toISOString(), userAgent: 'x' };
    expect(await h.resend.emailEvent('email.clicked', atProvider.providerMessageId, { click })).toBe(200);

    const message = await get(org.api, sent.id);
    expect(message.events.filter((e: { status: string }) => e.status === 'clicked').map((e: { link: string }) => e.link)).toEqual(['https://example.com/offer']);
    await hooks.waitForEvent('message.clicked');
    expect(await h.deps.db.event.count({ where: { orgId: org.orgId, type: 'message.clicked' } })).toBe(1);
  });
});

describe('the sandbox plays the other side for test keys', () => {
  it('sandbox.inbound runs the inbound path with keywords; a live key gets 403', async () => {
    const org = await h.testOrg();
    const hooks = await subscribe(org, ['message.received']);
    const inbound = await org.api.post('/v1/sandbox/inbound', { channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
    expect(inbound.status).toBe(201);
    expect(inbound.body).toMatchObject({ direction: 'inbound', status: 'received', provider: 'sandbox', body: 'STOP' });
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([expect.objectContaining({ address: '+14155550123', reason: 'stopped' })]);
    await hooks.waitForEvent('message.received', (data) => data.id === inbound.body.id);
    const blocked = (await org.api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'x' })).body;
    expect((await until(org.api, blocked.id, ['failed'])).error.code).toBe('SUPPRESSED');

    const email = await org.api.post('/v1/sandbox/inbound', { channelType: 'email', from: 'ada@example.com', to: 'support@acme.test', subject: 'Hi', text: 'Hello' });
    expect(email.body).toMatchObject({ channelType: 'email', direction: 'inbound', subject: 'Hi', text: 'Hello' });

    const bad = await org.api.post('/v1/sandbox/inbound', { channelType: 'sms', from: 'not-a-number', to: '+15005550006', body: 'hi' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', message: expect.stringContaining('from') } });

    const live = await h.liveOrg();
    const refused = await live.api.post('/v1/sandbox/inbound', { channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
    expect(refused).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect((await live.api.get('/v1/messages?direction=inbound')).body.data).toEqual([]);
  });

  it('open@, click@ and complain@ produce those events after delivery', async () => {
    const org = await h.testOrg();
    const hooks = await subscribe(org, ['message.opened', 'message.clicked', 'message.complained']);
    const send = async (to: string) => (await org.api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', text: 'x' })).body.id as string;
    const [open, click, complain] = [await send('open@example.com'), await send('click@example.com'), await send('complain@example.com')];
    const engaged = (id: string, last: string) =>
      waitFor(
        async () => {
          const m = await get(org.api, id);
          return history(m).at(-1) === last ? m : null;
        },
        10_000,
        `${id} ${last}`,
      );
    expect(history(await engaged(open, 'opened'))).toEqual(['queued', 'sending', 'sent', 'delivered', 'opened']);
    expect(history(await engaged(click, 'clicked'))).toEqual(['queued', 'sending', 'sent', 'delivered', 'opened', 'clicked']);
    // message.get reads the row and its history in two queries: poll until the row shows the click too
    await waitFor(async () => (await get(org.api, click)).clickedAt, 10_000, 'clickedAt');
    expect((await engaged(complain, 'complained')).status).toBe('delivered');
    await hooks.waitForEvent('message.opened', (d) => d.id === open);
    await hooks.waitForEvent('message.clicked', (d) => d.id === click && typeof d.link === 'string');
    await hooks.waitForEvent('message.complained', (d) => d.id === complain);
    expect((await org.api.get('/v1/suppressions')).body.data.map((s: { address: string }) => s.address)).toEqual(['complain@example.com']);
  });
});

describe('suppressions', () => {
  it('one created by API blocks a send, and deleting it lets the next one through', async () => {
    const org = await h.testOrg();
    const created = await org.api.post('/v1/suppressions', { channelType: 'email', address: ' Blocked@Example.com ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ channelType: 'email', address: 'blocked@example.com', reason: 'manual' });
    expect(created.body.id).toMatch(/^sup_/);
    expect((await org.api.post('/v1/suppressions', { channelType: 'email', address: 'blocked@example.com' })).status).toBe(409);
    expect((await org.api.post('/v1/suppressions', { channelType: 'sms', address: 'blocked@example.com' })).body.code).toBe('BAD_REQUEST');
    expect((await org.api.post('/v1/suppressions', { channelType: 'email', address: 'x@example.com', reason: 'bounced' })).status).toBe(400);

    const first = (await org.api.post('/v1/messages', { channelType: 'email', to: 'blocked@example.com', subject: 'Hi', text: 'x' })).body;
    expect((await until(org.api, first.id, ['failed'])).error.code).toBe('SUPPRESSED');

    expect((await org.api.get('/v1/suppressions?address=BLOCKED@example.com')).body.data).toHaveLength(1);
    expect((await org.api.delete(`/v1/suppressions/${created.body.id}`)).status).toBe(204);
    expect((await org.api.get('/v1/suppressions')).body.data).toEqual([]);
    const second = (await org.api.post('/v1/messages', { channelType: 'email', to: 'blocked@example.com', subject: 'Hi', text: 'x' })).body;
    expect((await until(org.api, second.id, ['delivered'])).error).toBeNull();
  });

  it("another organization's suppression is 404 and stays", async () => {
    const [mine, theirs] = [await h.testOrg(), await h.testOrg()];
    const created = (await theirs.api.post('/v1/suppressions', { channelType: 'sms', address: '+14155550123' })).body;
    expect(await mine.api.delete(`/v1/suppressions/${created.id}`)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', message: 'Suppression not found' } });
    expect((await mine.api.get('/v1/suppressions')).body.data).toEqual([]);
    expect((await theirs.api.get('/v1/suppressions')).body.data).toHaveLength(1);
  });
});

describe('webhook redelivery', () => {
  it('webhook.getEvent shows every attempt; webhook.retryEvent delivers a failed delivery again with the same webhook-id and a fresh signature', async () => {
    const org = await h.testOrg();
    const hook = await subscribe(org, ['contact.created']);
    receiver.setDefault({ kind: 'status', status: 503, body: 'down for maintenance' });
    try {
      await org.api.post('/v1/contacts', { email: 'first@example.com' });
      const [delivery] = (await org.api.get(`/v1/webhooks/${hook.id}/events`)).body.data;
      const failed = await waitFor(
        async () => {
          const d = (await org.api.get(`/v1/webhooks/${hook.id}/events/${delivery.id}`)).body;
          return d.status === 'failed' ? d : null;
        },
        10_000,
        'the delivery to give up',
      );
      expect(failed.attemptLog).toHaveLength(3);
      expect(failed.attemptLog[0]).toMatchObject({ number: 1, statusCode: 503, responseBody: 'down for maintenance' });
      expect(failed.payload).toMatchObject({ id: failed.eventId, type: 'contact.created', data: { email: 'first@example.com' } });
    } finally {
      receiver.setDefault({ kind: 'status', status: 200 });
    }
    const [delivery] = (await org.api.get(`/v1/webhooks/${hook.id}/events?status=failed`)).body.data;
    const before = receiver.requests.filter((r) => r.path === `/hooks/${org.orgId}`);
    const retriedAtSeconds = Math.floor(Date.now() / 1000);
    const retried = await org.api.post(`/v1/webhooks/${hook.id}/events/${delivery.id}/retry`);
    expect(retried.status).toBe(202);
    const done = await waitFor(
      async () => {
        const d = (await org.api.get(`/v1/webhooks/${hook.id}/events/${delivery.id}`)).body;
        return d.status === 'succeeded' ? d : null;
      },
      10_000,
      'the retry to succeed',
    );
    expect(done.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 200]);
    const last = receiver.requests.filter((r) => r.path === `/hooks/${org.orgId}`).at(-1)!;
    expect(last.headers['webhook-id']).toBe(before[0]!.headers['webhook-id']);
    expect(Number(last.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(retriedAtSeconds); // signed at the retry, not replayed
    expect(last.body).toBe(before[0]!.body);
    expect(hook.received().at(-1)!.event.id).toBe(delivery.eventId); // verified by standardwebhooks
  });

  it('webhook.replay re-delivers a range to a receiver that was down, and only the failed ones when asked', async () => {
    const org = await h.testOrg();
    const hook = await subscribe(org, ['contact.created']);
    await org.api.post('/v1/contacts', { email: 'ok@example.com' });
    await waitFor(async () => (await org.api.get(`/v1/webhooks/${hook.id}/events?status=succeeded`)).body.data.length === 1, 10_000, 'the first delivery');
    const since = new Date().toISOString();
    receiver.setDefault({ kind: 'status', status: 502 });
    try {
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await org.api.post('/v1/contacts', { email });
      await waitFor(async () => (await org.api.get(`/v1/webhooks/${hook.id}/events?status=failed`)).body.data.length === 3, 10_000, 'three deliveries to give up');
    } finally {
      receiver.setDefault({ kind: 'status', status: 200 });
    }
    const replay = await org.api.post(`/v1/webhooks/${hook.id}/replay`, { since, status: 'failed' });
    expect(replay).toMatchObject({ status: 202, body: { count: 3 } });
    await waitFor(async () => (await org.api.get(`/v1/webhooks/${hook.id}/events?status=succeeded`)).body.data.length === 4, 10_000, 'the replay');
    const delivered = hook.received().filter((r) => r.headers['webhook-id'] && r.event.type === 'contact.created');
    expect(new Set(delivered.map((r) => r.event.data.email))).toEqual(new Set(['ok@example.com', 'a@example.com', 'b@example.com', 'c@example.com']));

    // the whole range, whatever the status; an empty range is 0; since after until is 400
    expect((await org.api.post(`/v1/webhooks/${hook.id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() })).body.count).toBe(4);
    expect((await org.api.post(`/v1/webhooks/${hook.id}/replay`, { since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' })).body.count).toBe(0);
    expect((await org.api.post(`/v1/webhooks/${hook.id}/replay`, { since: '2020-01-02T00:00:00Z', until: '2020-01-01T00:00:00Z' })).status).toBe(400);
  });

  it("another organization's webhook and delivery ids are 404 for getEvent, retryEvent and replay", async () => {
    const [mine, theirs] = [await h.testOrg(), await h.testOrg()];
    const myHook = await subscribe(mine, ['contact.created']);
    const theirHook = await subscribe(theirs, ['contact.created']);
    await theirs.api.post('/v1/contacts', { email: 'x@example.com' });
    const [theirDelivery] = await waitFor(async () => {
      const data = (await theirs.api.get(`/v1/webhooks/${theirHook.id}/events?status=succeeded`)).body.data;
      return data.length > 0 ? data : null;
    });
    const attemptsBefore = await h.deps.db.webhookAttempt.count({ where: { deliveryId: theirDelivery.id } });
    for (const webhookId of [theirHook.id, myHook.id]) {
      expect((await mine.api.get(`/v1/webhooks/${webhookId}/events/${theirDelivery.id}`)).status).toBe(404);
      expect((await mine.api.post(`/v1/webhooks/${webhookId}/events/${theirDelivery.id}/retry`)).status).toBe(404);
    }
    expect((await mine.api.post(`/v1/webhooks/${theirHook.id}/replay`, { since: '2020-01-01T00:00:00Z' })).status).toBe(404);
    expect(await h.deps.db.webhookAttempt.count({ where: { deliveryId: theirDelivery.id } })).toBe(attemptsBefore);
  });
});
