import { randomUUID } from 'node:crypto';
import { serveHttp, type RunningServer } from '@tidings/testing';
import { startPipeline, waitFor } from './harness.ts';

// STOP, START and HELP answered as carriers expect: one confirmation after STOP (although the number is now
// suppressed), one after START, HELP always; each an outbound message of the organization, from the number written
// to, exactly one per inbound message. Inbound arrives as Telnyx's signed callbacks to the API's real endpoint.
let h: Awaited<ReturnType<typeof startPipeline>>;
let server: RunningServer;
beforeAll(async () => {
  h = await startPipeline();
  await h.startWorker();
  server = await serveHttp(h.app.fetch);
  h.telnyx.sendCallbacksTo(`${server.url}/v1/provider-events/telnyx`, h.telnyxKeys.privateKey);
  // a messaging profile whose own keyword handling is off, so that Tidings answers (see the SMS guide)
  h.telnyx.state.handlesKeywords = false;
});
afterAll(async () => {
  await server.close();
  await h.close();
});

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];
type Message = { id: string; status: string; body: string; from: string; to: string; attempts: number; metadata: Record<string, unknown> };
const uniquePhone = () => `+1415${String(2_000_000 + Math.floor(Math.random() * 7_000_000))}`;
/** A live organization named `name` whose default number is a valid one (replies are sent from it). */
async function liveOrgWithNumber(name: string) {
  const org = await h.liveOrg();
  await h.deps.db.organization.update({ where: { id: org.orgId }, data: { name } });
  const ours = uniquePhone();
  await h.deps.db.phoneNumber.updateMany({ where: { orgId: org.orgId }, data: { number: ours } });
  const numberId = (await h.deps.db.phoneNumber.findFirstOrThrow({ where: { orgId: org.orgId } })).id;
  return { ...org, ours, numberId };
}
const textsTo = (phone: string) => h.telnyx.requests.filter((r) => r.path === '/v2/messages' && r.body?.to === phone).map((r) => r.body as { text: string; from: string });
const outboundTo = async (api: Api, phone: string): Promise<Message[]> => (await api.get(`/v1/messages?direction=outbound&to=${encodeURIComponent(phone)}`)).body.data;
const sentTo = (api: Api, phone: string, count: number) =>
  waitFor(
    async () => {
      const messages = await outboundTo(api, phone);
      return messages.length === count && messages.every((m) => m.status === 'sent') ? messages : null;
    },
    15_000,
    `${count} sent replies to ${phone}`,
  );

describe('keyword replies', () => {
  it('confirms STOP once although the number is suppressed, answers HELP while stopped, confirms START', async () => {
    const org = await liveOrgWithNumber('Acme Alerts');
    const phone = uniquePhone();

    expect(await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'Stop' })).toBe(200);
    const [stopReply] = await sentTo(org.api, phone, 1);
    expect(stopReply).toMatchObject({ from: org.ours, to: phone, body: expect.stringMatching(/^Acme Alerts: you are unsubscribed/) });
    const [inbound] = (await org.api.get('/v1/messages?direction=inbound')).body.data;
    expect(stopReply!.metadata).toEqual({ inReplyTo: inbound.id });
    expect(textsTo(phone)).toEqual([expect.objectContaining({ from: org.ours, text: stopReply!.body })]);

    // the confirmation was the last ordinary message: anything else fails SUPPRESSED without a provider call
    const blocked = (await org.api.post('/v1/messages', { channelType: 'sms', to: phone, body: 'Sale today' })).body;
    await waitFor(async () => (await org.api.get(`/v1/messages/${blocked.id}`)).body.status === 'failed', 10_000, 'the blocked send to fail');
    expect((await org.api.get(`/v1/messages/${blocked.id}`)).body.error.code).toBe('SUPPRESSED');

    expect(await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'INFO' })).toBe(200);
    await waitFor(async () => textsTo(phone).length === 2, 15_000, 'the HELP answer while stopped');
    expect(textsTo(phone)[1]!.text).toMatch(/^Acme Alerts: reply STOP to unsubscribe/);

    expect(await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'start' })).toBe(200);
    await waitFor(async () => textsTo(phone).length === 3, 15_000, 'the START confirmation');
    expect(textsTo(phone)[2]!.text).toMatch(/^Acme Alerts: you are subscribed again/);
    expect(textsTo(phone).map((t) => t.text)).not.toContain('Sale today');
    // every reply is an outbound message of the organization
    await waitFor(
      async () =>
        (await outboundTo(org.api, phone))
          .map((m) => m.status)
          .sort()
          .join() === 'failed,sent,sent,sent',
      15_000,
      'three answers sent and the blocked send failed',
    );
  });

  it('one reply for a callback delivered six times at once', async () => {
    const org = await liveOrgWithNumber('Repeat Co');
    const phone = uniquePhone();
    const inboundId = randomUUID();
    const payload = {
      data: {
        event_type: 'message.received',
        id: randomUUID(),
        occurred_at: new Date().toISOString(),
        record_type: 'event',
        payload: { id: inboundId, record_type: 'message', direction: 'inbound', type: 'SMS', from: { phone_number: phone }, to: [{ phone_number: org.ours }], text: 'HELP' },
      },
    };
    const statuses = await Promise.all(Array.from({ length: 6 }, () => h.telnyx.postCallback(payload)));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    await sentTo(org.api, phone, 1);
    expect((await org.api.get('/v1/messages?direction=inbound')).body.data).toHaveLength(1);
    expect(textsTo(phone)).toHaveLength(1);
  });

  it("uses the number's own replies, and {} goes back to the defaults", async () => {
    const org = await liveOrgWithNumber('Own Words');
    const help = 'Own Words support: call 555-0100. Reply STOP to opt out.';
    const updated = await org.api.patch(`/v1/phone-numbers/${org.numberId}`, { replies: { help } });
    expect(updated).toMatchObject({ status: 200, body: { replies: { help } } });
    const phone = uniquePhone();
    await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'HELP' });
    await waitFor(async () => textsTo(phone).length === 1, 15_000, 'the HELP answer');
    expect(textsTo(phone)[0]!.text).toBe(help);

    expect((await org.api.patch(`/v1/phone-numbers/${org.numberId}`, { replies: {} })).body.replies).toEqual({});
    await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'HELP' });
    await waitFor(async () => textsTo(phone).length === 2, 15_000, 'the default HELP answer');
    expect(textsTo(phone)[1]!.text).toMatch(/^Own Words: reply STOP/);

    const bad = await org.api.patch(`/v1/phone-numbers/${org.numberId}`, { replies: { help: '' } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    const other = await h.liveOrg();
    expect((await other.api.patch(`/v1/phone-numbers/${org.numberId}`, { replies: { help: 'mine now' } })).status).toBe(404);
    expect((await org.api.get(`/v1/phone-numbers/${org.numberId}`)).body.replies).toEqual({});
  });

  it('a reply the provider fails is retried like any message', async () => {
    const org = await liveOrgWithNumber('Retry Inc');
    const phone = uniquePhone();
    h.telnyx.failNext(1, { kind: 'status', status: 503 }, '/v2/messages');
    await h.telnyx.receiveSms({ from: phone, to: org.ours, text: 'HELP' });
    const [reply] = await sentTo(org.api, phone, 1);
    expect(reply!.attempts).toBe(2);
    expect(h.telnyx.state.messages.filter((m) => m.to === phone)).toHaveLength(1); // the 503 accepted nothing
  });

  it('through the sandbox, a test key gets its replies from the sandbox and changes nothing live', async () => {
    const org = await h.testOrg();
    const phone = uniquePhone();
    const inbound = await org.api.post('/v1/sandbox/inbound', { channelType: 'sms', from: phone, to: '+15005550006', body: 'STOP' });
    expect(inbound.status).toBe(201);
    const reply = await waitFor(async () => (await outboundTo(org.api, phone)).find((m) => ['sent', 'delivered'].includes(m.status)), 15_000, 'the sandbox reply');
    expect(reply).toMatchObject({ from: '+15005550006', provider: 'sandbox', body: expect.stringContaining('you are unsubscribed') });
    expect(textsTo(phone)).toHaveLength(0);
  });
});
