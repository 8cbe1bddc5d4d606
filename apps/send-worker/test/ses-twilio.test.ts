import { signTwilioCallback } from '@tidings/testing';
import { SNS_CERTIFICATE_CACHE_SIZE, twilioCallbackUrl } from '@tidings/providers';
import { messageOnceIn, startPipeline, waitFor } from './harness.ts';

// SES for email and Twilio for SMS, through their official SDKs against loopback fakes; their callbacks arrive
// signed (SNS, X-Twilio-Signature) at /v1/provider-events/ses and /v1/provider-events/twilio.
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // generous timeout and lock: loading the SES and Twilio SDKs on a busy machine must not look like a failure or a stall
  h = await startPipeline({ EMAIL_PROVIDERS: 'ses', SMS_PROVIDERS: 'twilio', PROVIDER_TIMEOUT_MS: '15000', SEND_WORKER_LOCK_DURATION_MS: '15000' });
  await h.startWorker();
});
afterAll(() => h.close());

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];
const statusOf = async (api: Api, id: string) => (await api.get(`/v1/messages/${id}`)).body;
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 10_000);
const postSns = (post: { body: string; headers: Record<string, string> }) => h.anonymous.post('/v1/provider-events/ses', post.body, post.headers);
const postTwilio = (params: Record<string, string>, authToken = h.twilio.authToken) => {
  const signed = signTwilioCallback(authToken, twilioCallbackUrl(h.deps.config), params);
  return h.anonymous.post('/v1/provider-events/twilio', signed.body, signed.headers);
};

async function sentEmail(to: string) {
  const org = await h.liveOrg();
  const message = (await org.api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', html: '<p>Hello</p>', text: 'Hello' })).body;
  const sent = await until(org.api, message.id, ['sent']);
  const accepted = h.ses.state.emails.find((e) => e.id === sent.providerMessageId)!;
  return { ...org, message: sent, accepted };
}

describe('email through SES', () => {
  it('sends with the SES SDK (message id as a tag), and a signed SNS delivery notification delivers it', async () => {
    const { api, message, accepted } = await sentEmail('ada@example.com');
    expect(message).toMatchObject({ provider: 'ses', attempts: 1 });
    expect(accepted).toMatchObject({
      from: 'hello@acme.test',
      to: ['ada@example.com'],
      subject: 'Hi',
      html: '<p>Hello</p>',
      text: 'Hello',
      tags: { tidings_message_id: message.id },
    });
    expect(h.ses.requests[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE\//);

    const res = await postSns(h.sns.notification(h.ses.event(accepted, 'Delivery')));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, applied: true });
    const delivered = await statusOf(api, message.id);
    expect(delivered.status).toBe('delivered');
    expect(delivered.events.at(-1)).toMatchObject({ status: 'delivered', provider: 'ses' });
  });

  it('maps a permanent bounce (suppressing the address) and a complaint; SignatureVersion 1 verifies too', async () => {
    const { api, orgId, message, accepted } = await sentEmail('gone@example.com');
    const bounce = h.ses.event(accepted, 'Bounce', {
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'gone@example.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] },
    });
    expect((await postSns(h.sns.notification(bounce, { signatureVersion: '1' }))).status).toBe(200);
    const bounced = await statusOf(api, message.id);
    expect(bounced).toMatchObject({ status: 'bounced', error: { code: 'BOUNCED', message: 'smtp; 550 5.1.1 user unknown' } });
    expect(await h.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true, reason: true } })).toEqual([{ recipient: 'gone@example.com', reason: 'bounced' }]);

    const other = await sentEmail('annoyed@example.com');
    expect((await postSns(h.sns.notification(h.ses.event(other.accepted, 'Complaint', { complaint: { complaintFeedbackType: 'abuse' } })))).status).toBe(200);
    expect(await h.deps.db.suppression.findMany({ where: { orgId: other.orgId }, select: { recipient: true, reason: true } })).toEqual([
      { recipient: 'annoyed@example.com', reason: 'complained' },
    ]);
  });

  it('records opens and clicks through the engagement path, the status staying', async () => {
    const { api, message, accepted } = await sentEmail('reader@example.com');
    for (const event of [h.ses.event(accepted, 'Open', { open: {} }), h.ses.event(accepted, 'Click', { click: { link: 'https://acme.test/x' } })]) {
      const res = await postSns(h.sns.notification(event));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, applied: true });
    }
    const engaged = await statusOf(api, message.id);
    expect(engaged.status).toBe('sent');
    expect(engaged.events.slice(-2).map((e: { status: string; link: string | null }) => [e.status, e.link])).toEqual([
      ['opened', null],
      ['clicked', 'https://acme.test/x'],
    ]);
  });

  it('refuses unsigned, forged and off-host notifications with 401, changing nothing', async () => {
    const { api, message, accepted } = await sentEmail('safe@example.com');
    const delivery = h.ses.event(accepted, 'Delivery');
    const genuine = h.sns.notification(delivery);

    const unsigned = JSON.parse(genuine.body);
    delete unsigned.Signature;
    const tampered = { ...JSON.parse(genuine.body), Message: JSON.stringify(h.ses.event(accepted, 'Bounce', { bounce: { bounceType: 'Permanent' } })) };
    const offHost = { ...JSON.parse(genuine.body), SigningCertURL: 'https://sns.us-east-1.amazonaws.com.evil.test/cert.pem' };
    for (const body of [unsigned, tampered, offHost]) {
      const res = await h.anonymous.post('/v1/provider-events/ses', JSON.stringify(body), { 'content-type': 'text/plain' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
    expect((await h.anonymous.post('/v1/provider-events/ses', 'not json', { 'content-type': 'text/plain' })).status).toBe(401);
    expect((await statusOf(api, message.id)).status).toBe('sent');
  });

  it('refuses a genuine notification over an hour old with 400, changing nothing; one just inside the hour applies', async () => {
    const { api, message, accepted } = await sentEmail('late@example.com');
    const hourAgo = h.deps.now().getTime() - 60 * 60 * 1000;
    const stale = h.sns.notification(h.ses.event(accepted, 'Bounce', { bounce: { bounceType: 'Permanent' } }), { timestamp: new Date(hourAgo - 60_000) });
    const res = await postSns(stale);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: 'The ses callback is too old to act on' });
    expect((await statusOf(api, message.id)).status).toBe('sent');
    expect(await h.deps.db.suppression.count({ where: { recipient: 'late@example.com' } })).toBe(0);

    const late = h.sns.notification(h.ses.event(accepted, 'Delivery'), { timestamp: new Date(hourAgo + 60_000) });
    expect((await postSns(late)).status).toBe(200);
    expect((await statusOf(api, message.id)).status).toBe('delivered');
  });

  it("an SES event about org A's email that echoes org B's message id in its tags changes nothing of B's", async () => {
    const a = await sentEmail('attacker@example.com');
    const b = await sentEmail('victim@example.com');
    const echoing = { ...a.accepted, tags: { tidings_message_id: b.message.id } };
    for (const event of [h.ses.event(echoing, 'Complaint'), h.ses.event(echoing, 'Bounce', { bounce: { bounceType: 'Permanent' } })]) {
      expect((await postSns(h.sns.notification(event))).body).toEqual({ received: true, applied: false });
    }
    expect((await statusOf(b.api, b.message.id)).status).toBe('sent');
    expect(await h.deps.db.suppression.count({ where: { orgId: b.orgId } })).toBe(0);
    // the tag SES really echoes applies to A's own message
    expect((await postSns(h.sns.notification(h.ses.event(a.accepted, 'Delivery')))).body).toEqual({ received: true, applied: true });
  });

  it('an SNS notification posted twice, and 6 times at once, records its delay once', async () => {
    // a delay, not an open: a message's second open counts for nothing whatever its event id (the first open per message)
    const { api, message, accepted } = await sentEmail('twice@example.com');
    const delayed = h.sns.notification(h.ses.event(accepted, 'DeliveryDelay', { deliveryDelay: { delayType: 'TransientCommunicationFailure' } }));
    for (let i = 0; i < 2; i++) expect((await postSns(delayed)).status).toBe(200);
    const another = h.sns.notification(h.ses.event(accepted, 'DeliveryDelay', { deliveryDelay: { delayType: 'TransientCommunicationFailure' } }));
    const answers = await Promise.all(Array.from({ length: 6 }, () => postSns(another)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const delays = (await statusOf(api, message.id)).events.filter((e: { status: string }) => e.status === 'delayed');
    expect(delays).toHaveLength(2); // two notifications (two MessageIds), each once
  });

  it('keeps at most SNS_CERTIFICATE_CACHE_SIZE signing certificates however many distinct certificate URLs arrive', async () => {
    const { accepted } = await sentEmail('many-certs@example.com');
    const distinct = SNS_CERTIFICATE_CACHE_SIZE + 15;
    const fetchedBefore = h.sns.requests.filter((r) => r.path.startsWith('/certs/')).length;
    for (let i = 0; i < distinct; i++) {
      const post = h.sns.notification(h.ses.event(accepted, 'Open', { open: {} }));
      // SNS does not sign SigningCertURL: the same signature verifies with the certificate at any URL serving it
      const body = JSON.stringify({ ...JSON.parse(post.body), SigningCertURL: `${h.sns.url}/certs/c${i}-${Date.now()}.pem` });
      expect((await postSns({ body, headers: post.headers })).status).toBe(200);
      expect(h.deps.providers.snsCertificates.size).toBeLessThanOrEqual(SNS_CERTIFICATE_CACHE_SIZE);
    }
    expect(h.sns.requests.filter((r) => r.path.startsWith('/certs/')).length - fetchedBefore).toBe(distinct);
  });

  it('confirms an SNS subscription by fetching its SubscribeURL', async () => {
    const confirmation = h.sns.subscriptionConfirmation();
    const res = await postSns(confirmation);
    expect(res.status).toBe(200);
    expect(h.sns.confirmedTokens).toContain(confirmation.token);
  });

  it('fails a message SES rejects (MessageRejected) without retrying', async () => {
    const { api } = await h.liveOrg();
    const message = (await api.post('/v1/messages', { channelType: 'email', to: 'rejected@example.com', subject: 'Hi', text: 'x' })).body;
    const failed = await until(api, message.id, ['failed']);
    expect(failed).toMatchObject({ provider: 'ses', attempts: 1, error: { code: 'PROVIDER_REJECTED', message: expect.stringContaining('MessageRejected') } });
  });
});

describe('SMS through Twilio', () => {
  it('sends with the Twilio SDK asking for status callbacks, and a signed callback delivers it', async () => {
    const { api } = await h.liveOrg();
    const message = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'Your code is 1234' })).body;
    expect(message.provider).toBe('twilio');
    const sent = await until(api, message.id, ['sent']);
    const accepted = h.twilio.state.messages.find((m) => m.sid === sent.providerMessageId);
    expect(accepted).toMatchObject({ to: '+14155550123', body: 'Your code is 1234', from: message.from, statusCallback: 'http://localhost:3000/v1/provider-events/twilio' });
    // Twilio takes no idempotency key: the claim is in the history before the call
    expect(sent.events.map((e: { status: string; provider: string | null }) => [e.status, e.provider])).toEqual([
      ['queued', null],
      ['sending', null],
      ['sending', 'twilio'],
      ['sent', 'twilio'],
    ]);

    expect((await postTwilio({ MessageSid: accepted!.sid, MessageStatus: 'sent', AccountSid: h.twilio.accountSid })).body).toEqual({ received: true, applied: false });
    expect((await postTwilio({ MessageSid: accepted!.sid, MessageStatus: 'delivered', AccountSid: h.twilio.accountSid })).status).toBe(200);
    expect((await statusOf(api, message.id)).status).toBe('delivered');
  });

  it('maps undelivered with its error code; unsigned and forged callbacks are 401 and change nothing', async () => {
    const { api } = await h.liveOrg();
    const message = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550124', body: 'hi' })).body;
    const sent = await until(api, message.id, ['sent']);
    const params = { MessageSid: sent.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30006' };

    const forged = await postTwilio(params, 'not-the-auth-token');
    expect(forged.status).toBe(401);
    const unsigned = await h.anonymous.post('/v1/provider-events/twilio', new URLSearchParams(params).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(unsigned.status).toBe(401);
    expect((await statusOf(api, message.id)).status).toBe('sent');

    expect((await postTwilio(params)).status).toBe(200);
    expect(await statusOf(api, message.id)).toMatchObject({ status: 'undelivered', error: { code: 'TWILIO_30006' } });
  });

  it('takes an inbound SMS through the inbound path: STOP suppresses the sender, as for Telnyx', async () => {
    const { orgId } = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId } })).number;
    const res = await postTwilio({ MessageSid: 'SMinbound0001', SmsSid: 'SMinbound0001', SmsStatus: 'received', From: '+14155550177', To: ours, Body: ' stop ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, applied: true });
    const inbound = await h.deps.db.message.findFirstOrThrow({ where: { orgId, providerMessageId: 'SMinbound0001' } });
    expect(inbound).toMatchObject({ direction: 'inbound', status: 'received', provider: 'twilio', from: '+14155550177', to: ours });
    expect(await h.deps.db.suppression.findMany({ where: { orgId }, select: { recipient: true, reason: true } })).toEqual([{ recipient: '+14155550177', reason: 'stopped' }]);
    // the same callback again records nothing twice
    await postTwilio({ MessageSid: 'SMinbound0001', SmsSid: 'SMinbound0001', SmsStatus: 'received', From: '+14155550177', To: ours, Body: ' stop ' });
    expect(await h.deps.db.message.count({ where: { orgId, direction: 'inbound' } })).toBe(1);
  });

  it('answers HELP through Twilio from the number written to, once for a callback Twilio repeats', async () => {
    const { orgId, api } = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId } })).number;
    const params = { MessageSid: 'SMinbound0002', SmsSid: 'SMinbound0002', SmsStatus: 'received', From: '+14155550178', To: ours, Body: 'help' };
    const answers = await Promise.all([postTwilio(params), postTwilio(params), postTwilio(params)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const reply = await waitFor(
      async () => (await api.get('/v1/messages?direction=outbound')).body.data.find((m: { status: string }) => m.status === 'sent'),
      10_000,
      'the HELP answer to be sent',
    );
    expect(reply).toMatchObject({ provider: 'twilio', from: ours, to: '+14155550178', body: expect.stringContaining('reply STOP to unsubscribe') });
    expect(h.twilio.state.messages.filter((m) => m.to === '+14155550178')).toHaveLength(1);
    expect(await h.deps.db.message.count({ where: { orgId, direction: 'inbound' } })).toBe(1);
  });

  it('an inbound SMS callback posted 6 times at once records one inbound message', async () => {
    const { orgId } = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId } })).number;
    const params = { MessageSid: 'SMconcurrent01', SmsSid: 'SMconcurrent01', SmsStatus: 'received', From: '+14155550178', To: ours, Body: 'hello' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => postTwilio(params)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await h.deps.db.message.count({ where: { orgId, direction: 'inbound' } })).toBe(1);
  });

  it('fails a number Twilio calls invalid (400, error 21211) without retrying', async () => {
    const { api } = await h.liveOrg();
    const message = (await api.post('/v1/messages', { channelType: 'sms', to: '+15005550001', body: 'hi' })).body;
    const failed = await until(api, message.id, ['failed']);
    expect(failed).toMatchObject({ provider: 'twilio', attempts: 1, error: { code: 'PROVIDER_REJECTED', message: expect.stringContaining('21211') } });
    expect(h.twilio.state.messages.some((m) => m.to === '+15005550001')).toBe(false);
  });
});

describe('test keys', () => {
  it('never reach SES or Twilio', async () => {
    const { api } = await h.testOrg();
    const callsBefore = h.ses.requests.length + h.twilio.requests.length;
    const email = (await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x' })).body;
    const sms = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'x' })).body;
    expect((await until(api, email.id, ['delivered'])).provider).toBe('sandbox');
    expect((await until(api, sms.id, ['delivered'])).provider).toBe('sandbox');
    expect(h.ses.requests.length + h.twilio.requests.length).toBe(callsBefore);
  });
});
