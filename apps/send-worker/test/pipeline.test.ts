import { setOrganizationSuspended } from '@tidings/core';
import { signResendCallback, signTelnyxCallback } from '@tidings/testing';
import { RESEND_WEBHOOK_SECRET, messageOnceIn, startPipeline, waitFor } from './harness.ts';

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // the tests poll a message until its status changes; a deferred send takes seconds, past the API's 100 requests a minute
  h = await startPipeline();
  await h.startWorker();
});
afterAll(() => h.close());
beforeEach(() => {
  h.resend.reset();
  h.resend.state.emails.length = 0;
  h.telnyx.reset();
  h.telnyx.state.messages.length = 0;
});

type Api = Awaited<ReturnType<typeof h.testOrg>>['api'];
const statusOf = async (api: Api, id: string) => (await api.get(`/v1/messages/${id}`)).body;
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 10_000);
const history = (m: { events: { status: string }[] }) => m.events.map((e) => e.status);
const emailsTo = (to: string) => h.resend.state.emails.filter((e) => e.to.includes(to));

describe('end to end with a test key (sandbox)', () => {
  it('delivers an email and an SMS, with the full status history', async () => {
    const { api, orgId } = await h.testOrg();
    const email = (await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', html: '<p>Hello</p>' })).body;
    const sms = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'Hello' })).body;
    const deliveredEmail = await until(api, email.id, ['delivered']);
    const deliveredSms = await until(api, sms.id, ['delivered']);
    expect(history(deliveredEmail)).toEqual(['queued', 'sending', 'sent', 'delivered']);
    expect(history(deliveredSms)).toEqual(['queued', 'sending', 'sent', 'delivered']);
    expect(deliveredEmail).toMatchObject({ provider: 'sandbox', providerMessageId: `sandbox_${email.id}`, attempts: 1, html: '<p>Hello</p>' });
    expect(deliveredEmail.sentAt).not.toBeNull();
    expect(deliveredEmail.deliveredAt).not.toBeNull();
    // nothing left the machine
    expect(h.resend.requests).toHaveLength(0);
    expect(h.telnyx.requests).toHaveLength(0);
    const types = (await h.deps.db.event.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } })).map((e) => e.type);
    expect(types.filter((t) => t === 'message.delivered')).toHaveLength(2);
    expect(types.filter((t) => t === 'message.sent')).toHaveLength(2);
  });

  it('bounces bounce@, fails fail@ and leaves numbers ending in 0000 undelivered; bounces are suppressed', async () => {
    const { api, orgId } = await h.testOrg();
    const bounce = (await api.post('/v1/messages', { channelType: 'email', to: 'bounce@example.com', subject: 'Hi', text: 'x' })).body;
    const fail = (await api.post('/v1/messages', { channelType: 'email', to: 'fail@example.com', subject: 'Hi', text: 'x' })).body;
    const undelivered = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550000', body: 'x' })).body;
    expect((await until(api, bounce.id, ['bounced'])).error).toMatchObject({ code: 'BOUNCED' });
    expect((await until(api, fail.id, ['failed'])).error).toMatchObject({ code: 'PROVIDER_FAILED' });
    expect((await until(api, undelivered.id, ['undelivered'])).error).toMatchObject({ code: 'UNDELIVERED' });
    expect(await h.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true, reason: true } })).toEqual([{ recipient: 'bounce@example.com', reason: 'bounced' }]);

    // the next message to a suppressed address fails without a provider call
    const again = (await api.post('/v1/messages', { channelType: 'email', to: 'Bounce@Example.com', subject: 'Hi', text: 'x' })).body;
    const suppressed = await until(api, again.id, ['failed']);
    expect(suppressed.error.code).toBe('SUPPRESSED');
    expect(suppressed.providerMessageId).toBeNull();
    expect(history(suppressed)).toEqual(['queued', 'failed']);
  });
});

describe('end to end with a live key (real SDKs against the fakes)', () => {
  it('sends email through Resend with the message id as Idempotency-Key, then a signed callback delivers it', async () => {
    const { api, orgId } = await h.liveOrg();
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello', tags: ['t'] })).body;
    expect(sent.provider).toBe('resend');
    const atProvider = await until(api, sent.id, ['sent']);
    const [accepted] = emailsTo('ada@example.com');
    expect(atProvider.providerMessageId).toBe(accepted!.id);
    expect(accepted).toMatchObject({ from: 'hello@acme.test', subject: 'Hi', text: 'Hello', idempotencyKey: sent.id });
    expect(h.resend.requests[0]!.headers.authorization).toBe('Bearer re_test_key');

    const callback = signResendCallback(RESEND_WEBHOOK_SECRET, { type: 'email.delivered', created_at: new Date().toISOString(), data: { email_id: accepted!.id } });
    const res = await h.anonymous.post('/v1/provider-events/resend', callback.body, callback.headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, applied: true });
    const delivered = await statusOf(api, sent.id);
    expect(delivered.status).toBe('delivered');
    expect(history(delivered)).toEqual(['queued', 'sending', 'sent', 'delivered']);
    expect(await h.deps.db.event.count({ where: { orgId, type: 'message.delivered' } })).toBe(1);
  });

  it('sends SMS through Telnyx, and an Ed25519-signed message.finalized callback delivers it', async () => {
    const { api } = await h.liveOrg();
    const sent = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'Your code is 1234' })).body;
    expect(sent.provider).toBe('telnyx');
    const atProvider = await until(api, sent.id, ['sent']);
    const accepted = h.telnyx.state.messages.find((m) => m.id === atProvider.providerMessageId);
    expect(accepted).toMatchObject({ to: '+14155550123', text: 'Your code is 1234', from: sent.from });

    const payload = { data: { event_type: 'message.finalized', payload: { id: accepted!.id, to: [{ phone_number: '+14155550123', status: 'delivered' }] } } };
    const callback = signTelnyxCallback(h.telnyxKeys.privateKey, payload);
    expect((await h.anonymous.post('/v1/provider-events/telnyx', callback.body, callback.headers)).status).toBe(200);
    expect((await statusOf(api, sent.id)).status).toBe('delivered');

    // a forged one (signed by another key) is 401 and changes nothing
    const other = signTelnyxCallback(require('node:crypto').generateKeyPairSync('ed25519').privateKey, {
      data: { event_type: 'message.finalized', payload: { id: accepted!.id, to: [{ status: 'delivery_failed' }] } },
    });
    expect((await h.anonymous.post('/v1/provider-events/telnyx', other.body, other.headers)).status).toBe(401);
    expect((await statusOf(api, sent.id)).status).toBe('delivered');
  });

  it('retries a provider 500 and ends with exactly one accepted email', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 500, body: { statusCode: 500, name: 'internal_server_error', message: 'boom' } }, '/emails');
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'retry@example.com', subject: 'Hi', text: 'x' })).body;
    const done = await until(api, sent.id, ['sent']);
    expect(done.attempts).toBe(2);
    expect(done.error).toBeNull();
    expect(h.resend.requests.filter((r) => r.path === '/emails')).toHaveLength(2);
    expect(emailsTo('retry@example.com')).toHaveLength(1);
    expect(done.providerMessageId).toBe(emailsTo('retry@example.com')[0]!.id);
  });

  it('defers a 429 without spending an attempt, retries a timeout and a 503, then fails with the last error after the configured attempts', async () => {
    const { api } = await h.liveOrg();
    // the provider's limit defers the message to its pace and is no attempt (nor a history entry): three failures follow
    h.resend.failNext(1, { kind: 'status', status: 429, body: { statusCode: 429, name: 'rate_limit_exceeded', message: 'slow down' } }, '/emails');
    h.resend.failNext(1, { kind: 'hang' }, '/emails'); // PROVIDER_TIMEOUT_MS (2 s here) gives up on it
    h.resend.failNext(2, { kind: 'status', status: 503, body: { statusCode: 503, name: 'service_unavailable', message: 'down' } }, '/emails');
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'flaky@example.com', subject: 'Hi', text: 'x' })).body;
    const failed = await until(api, sent.id, ['failed']);
    expect(h.resend.requests.filter((r) => r.path === '/emails')).toHaveLength(4);
    expect(failed.attempts).toBe(3);
    expect(failed.error).toEqual({ code: 'PROVIDER_UNAVAILABLE', message: expect.stringContaining('503') });
    expect(emailsTo('flaky@example.com')).toHaveLength(0);
    // each failed call is in the history with the provider and its error; the last one failed the message
    expect(history(failed)).toEqual(['queued', 'sending', 'sending', 'sending', 'sending', 'failed']);
    expect(failed.events.slice(2).map((e: { provider: string; error: { code: string } }) => [e.provider, e.error.code])).toEqual([
      ['resend', 'PROVIDER_UNAVAILABLE'],
      ['resend', 'PROVIDER_UNAVAILABLE'],
      ['resend', 'PROVIDER_UNAVAILABLE'],
      ['resend', 'PROVIDER_UNAVAILABLE'],
    ]);
  });

  it('fails a permanent 422 at once, without retrying', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' } }, '/emails');
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'bad@example.com', subject: 'Hi', text: 'x' })).body;
    const failed = await until(api, sent.id, ['failed']);
    expect(failed.attempts).toBe(1);
    expect(failed.error).toEqual({ code: 'PROVIDER_REJECTED', message: expect.stringContaining('422') });
    // the job ending failed (not delayed for a retry) is what says no second attempt will come
    const job = await h.deps.queues.email.getJob(sent.id);
    await waitFor(async () => (await job?.getState()) === 'failed', 5000, 'the job to end failed');
    expect(h.resend.requests.filter((r) => r.path === '/emails')).toHaveLength(1);
  });
});

describe('provider callbacks', () => {
  async function sentEmail(to: string) {
    const org = await h.liveOrg();
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', text: 'x' })).body;
    const m = await until(org.api, sent.id, ['sent']);
    return { ...org, message: m };
  }
  const postResend = (payload: unknown, secret = RESEND_WEBHOOK_SECRET) => {
    const signed = signResendCallback(secret, payload);
    return h.anonymous.post('/v1/provider-events/resend', signed.body, signed.headers);
  };

  it('records a bounce and suppresses the address; a bad signature is 401 and changes nothing', async () => {
    const { api, orgId, message } = await sentEmail('gone@example.com');
    const bounce = { type: 'email.bounced', data: { email_id: message.providerMessageId, bounce: { message: 'mailbox does not exist' } } };

    const forged = await postResend(bounce, `whsec_${Buffer.from('not the secret at all!!').toString('base64')}`);
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe('UNAUTHORIZED');
    const unsigned = await h.anonymous.post('/v1/provider-events/resend', bounce);
    expect(unsigned.status).toBe(401);
    expect((await statusOf(api, message.id)).status).toBe('sent');
    expect(await h.deps.db.suppression.count({ where: { orgId } })).toBe(0);

    expect((await postResend(bounce)).status).toBe(200);
    const bounced = await statusOf(api, message.id);
    expect(bounced.status).toBe('bounced');
    expect(bounced.error).toEqual({ code: 'BOUNCED', message: 'mailbox does not exist' });
    expect(await h.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true, reason: true } })).toEqual([{ recipient: 'gone@example.com', reason: 'bounced' }]);

    // out of order: a late "delivered" never moves bounced backwards
    const late = await postResend({ type: 'email.delivered', data: { email_id: message.providerMessageId } });
    expect(late.body).toEqual({ received: true, applied: false });
    expect((await statusOf(api, message.id)).status).toBe('bounced');
  });

  it('records a complaint into suppression without changing the status', async () => {
    const { api, orgId, message } = await sentEmail('angry@example.com');
    await postResend({ type: 'email.delivered', data: { email_id: message.providerMessageId } });
    const res = await postResend({ type: 'email.complained', data: { email_id: message.providerMessageId } });
    expect(res.status).toBe(200);
    expect((await statusOf(api, message.id)).status).toBe('delivered');
    expect(await h.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true, reason: true } })).toEqual([
      { recipient: 'angry@example.com', reason: 'complained' },
    ]);

    const next = (await api.post('/v1/messages', { channelType: 'email', to: 'angry@example.com', subject: 'Hi', text: 'x' })).body;
    expect((await until(api, next.id, ['failed'])).error.code).toBe('SUPPRESSED');
    expect(emailsTo('angry@example.com')).toHaveLength(1);
  });

  it('skips API-key auth and rate limiting, and acknowledges events it has nothing to do with', async () => {
    const res = await postResend({ type: 'email.opened', data: { email_id: 'whatever' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect((await postResend({ type: 'email.delivered', data: { email_id: 'unknown-id' } })).body).toEqual({ received: true, applied: false });
  });
});

describe('scheduling and canceling', () => {
  it('sends a scheduled message when its time comes', async () => {
    const { api } = await h.testOrg();
    const sent = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'later', scheduledAt: new Date(Date.now() + 700).toISOString() })).body;
    expect(sent.status).toBe('scheduled');
    const delivered = await until(api, sent.id, ['delivered']);
    expect(history(delivered)).toEqual(['scheduled', 'queued', 'sending', 'sent', 'delivered']);
    expect(new Date(delivered.sentAt).getTime()).toBeGreaterThanOrEqual(new Date(sent.scheduledAt).getTime() - 1000);
  });

  it('never sends a scheduled message that was canceled, even when its job is queued again', async () => {
    const { api } = await h.liveOrg();
    const sent = (
      await api.post('/v1/messages', { channelType: 'email', to: 'never@example.com', subject: 'Hi', text: 'x', scheduledAt: new Date(Date.now() + 500).toISOString() })
    ).body;
    expect((await api.post(`/v1/messages/${sent.id}/cancel`)).status).toBe(200);
    // the job comes back anyway (a relay, a stale duplicate): the worker must still send nothing
    const job = await h.deps.queues.email.add('email', { messageId: sent.id }, { jobId: sent.id });
    // a completed job is the worker's last word on this message: anything it sent, it sent before completing
    await waitFor(async () => (await job.getState()) === 'completed', 5000, 'the job to finish');
    expect(emailsTo('never@example.com')).toHaveLength(0);
    expect(h.resend.requests).toHaveLength(0);
    const after = await statusOf(api, sent.id);
    expect(after.status).toBe('canceled');
    expect(history(after)).toEqual(['scheduled', 'canceled']);
  });
});

describe('a suspended organization', () => {
  it('has its waiting messages failed as ORGANIZATION_SUSPENDED, without a provider call; another organization still sends', async () => {
    const { api, orgId } = await h.liveOrg();
    const bystander = await h.liveOrg();
    // scheduled a few seconds ahead, so that the suspension surely comes before its job runs
    const at = new Date(Date.now() + 10_000).toISOString();
    const waiting = (await api.post('/v1/messages', { channelType: 'email', to: 'held@example.com', subject: 'Hi', text: 'x', scheduledAt: at })).body;
    const other = (await bystander.api.post('/v1/messages', { channelType: 'email', to: 'free@example.com', subject: 'Hi', text: 'x' })).body;
    await setOrganizationSuspended(h.deps, orgId, true);
    expect(Date.now()).toBeLessThan(new Date(at).getTime());

    expect(waiting.status).toBe('scheduled');
    const failed = await waitFor(
      async () => {
        const row = await h.deps.db.message.findFirst({ where: { id: waiting.id } });
        return row?.status === 'failed' ? row : null;
      },
      45_000,
      "the suspended organization's message to fail",
    );
    expect(failed).toMatchObject({ errorCode: 'ORGANIZATION_SUSPENDED', errorMessage: 'The organization was suspended before this message was sent.' });
    expect(await until(bystander.api, other.id, ['sent', 'delivered'])).toMatchObject({ provider: 'resend' });
    expect(emailsTo('held@example.com')).toHaveLength(0);
    expect(emailsTo('free@example.com')).toHaveLength(1);
  }, 90_000);
});
