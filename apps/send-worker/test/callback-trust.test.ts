import { randomUUID } from 'node:crypto';
import { newId } from '@tidings/core';
import { serveHttp, signResendCallback, signTelnyxCallback, type RunningServer } from '@tidings/testing';
import { RESEND_WEBHOOK_SECRET, startPipeline, waitFor } from './harness.ts';

// Provider callbacks are trusted for what the provider's own ids say, never for what a tenant could have put in the
// message (its tags): each test posts correctly signed callbacks, as a provider account shared by every tenant would.
let h: Awaited<ReturnType<typeof startPipeline>>;
let server: RunningServer;
beforeAll(async () => {
  h = await startPipeline({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  await h.startWorker();
  server = await serveHttp(h.app.fetch);
  h.resend.sendCallbacksTo(`${server.url}/v1/provider-events/resend`, RESEND_WEBHOOK_SECRET);
});
afterAll(async () => {
  await server.close();
  await h.close();
});

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];
const get = async (api: Api, id: string) => (await api.get(`/v1/messages/${id}`)).body;
const history = (m: { events: { status: string }[] }) => m.events.map((e) => e.status);
const postResend = (payload: unknown, id?: string) => {
  const signed = signResendCallback(RESEND_WEBHOOK_SECRET, payload, id ? { id } : {});
  return h.anonymous.post('/v1/provider-events/resend', signed.body, signed.headers);
};

/** A live organization's email, handed to Resend (status sent), with the id Resend gave it. */
async function sentEmail(to: string) {
  const org = await h.liveOrg();
  const created = (await org.api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', text: 'Hello' })).body;
  const sent = await waitFor(
    async () => {
      const m = await get(org.api, created.id);
      return m.status === 'sent' ? m : null;
    },
    15_000,
    `message ${created.id} sent`,
  );
  return { ...org, message: sent, emailId: sent.providerMessageId as string };
}

describe('a Resend callback finds the message by the id Resend gave it', () => {
  it("an event about org A's email that echoes org B's message id in its tags changes nothing of B's (nor of A's)", async () => {
    const a = await sentEmail('attacker-inbox@example.com');
    const b = await sentEmail('victim@example.com');
    for (const type of ['email.complained', 'email.bounced', 'email.opened']) {
      const res = await postResend({ type, data: { email_id: a.emailId, tags: { tidings_message_id: b.message.id } } });
      expect(res).toMatchObject({ status: 200, body: { received: true, applied: false } });
    }
    expect(history(await get(b.api, b.message.id))).toEqual(['queued', 'sending', 'sent']);
    expect((await b.api.get('/v1/suppressions')).body.data).toEqual([]);
    expect(history(await get(a.api, a.message.id))).toEqual(['queued', 'sending', 'sent']);

    // the same event with the tag Resend really echoes (or none) applies to A's own message
    expect((await postResend({ type: 'email.opened', data: { email_id: a.emailId, tags: { tidings_message_id: a.message.id } } })).body.applied).toBe(true);
    expect((await postResend({ type: 'email.delivered', data: { email_id: a.emailId } })).body.applied).toBe(true);
    expect(history(await get(a.api, a.message.id))).toEqual(['queued', 'sending', 'sent', 'opened', 'delivered']);
  });
});

describe('each provider event has its effect once, however often and however concurrently it is posted', () => {
  it('a Resend email.delivery_delayed with one svix-id, 7 times in a row and 6 times at once, makes one delayed entry and one webhook event each', async () => {
    // a delay, not an open: a message's second open counts for nothing whatever its event id (the first open per message)
    const a = await sentEmail('reader@example.com');
    const hook = (await a.api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['message.delayed'] })).body;
    const delayed = { type: 'email.delivery_delayed', data: { email_id: a.emailId } };
    const first = `msg_${randomUUID()}`;
    for (let i = 0; i < 7; i++) expect((await postResend(delayed, first)).status).toBe(200);
    const second = `msg_${randomUUID()}`;
    const concurrent = await Promise.all(Array.from({ length: 6 }, () => postResend(delayed, second)));
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(concurrent.filter((r) => r.body.applied)).toHaveLength(1);

    expect(history(await get(a.api, a.message.id))).toEqual(['queued', 'sending', 'sent', 'delayed', 'delayed']);
    const deliveries = (await a.api.get(`/v1/webhooks/${hook.id}/events`)).body.data;
    expect(deliveries.map((d: { eventType: string }) => d.eventType)).toEqual(['message.delayed', 'message.delayed']);
  });

  it('a Telnyx message.received posted 6 times at once (and again after) makes one inbound message', async () => {
    const org = await h.liveOrg();
    const ours = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId: org.orgId } })).number;
    const payload = {
      data: {
        id: randomUUID(),
        event_type: 'message.received',
        payload: { id: randomUUID(), from: { phone_number: '+14155550188' }, to: [{ phone_number: ours }], text: 'Hello' },
      },
    };
    const signed = signTelnyxCallback(h.telnyxKeys.privateKey, payload);
    const post = () => h.anonymous.post('/v1/provider-events/telnyx', signed.body, signed.headers);
    const answers = await Promise.all(Array.from({ length: 6 }, post));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await post()).status).toBe(200);
    expect((await org.api.get('/v1/messages?direction=inbound')).body.data).toHaveLength(1);
  });
});

describe('inbound email goes only to an organization that verified the domain', () => {
  it('a domain only pending in a test organization receives nothing; once another organization verifies it, mail goes there', async () => {
    const domain = `claimed-${randomUUID().slice(0, 8)}.test`;
    const squatter = await h.testOrg();
    await h.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: squatter.orgId, name: domain, status: 'pending', provider: 'sandbox', records: [] } });
    const first = await h.resend.receiveEmail({ from: 'ada@example.com', to: `billing@${domain}`, subject: 'Invoice', text: 'Attached.' });
    expect(first.status).toBe(200);
    expect((await squatter.api.get('/v1/messages?direction=inbound')).body.data).toEqual([]);

    const owner = await h.liveOrg();
    await h.deps.db.emailDomain.create({
      data: { id: newId('dom'), orgId: owner.orgId, name: domain, status: 'verified', provider: 'resend', records: [], verifiedAt: new Date() },
    });
    expect((await h.resend.receiveEmail({ from: 'ada@example.com', to: `billing@${domain}`, subject: 'Invoice 2', text: 'Attached.' })).status).toBe(200);
    expect((await owner.api.get('/v1/messages?direction=inbound')).body.data.map((m: { subject: string }) => m.subject)).toEqual(['Invoice 2']);
    expect((await squatter.api.get('/v1/messages?direction=inbound')).body.data).toEqual([]);
  });
});
