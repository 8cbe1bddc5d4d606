import { CODE_MASK } from '@tidings/core';
import { createLogger } from '@tidings/runtime';
import { messageOnceIn, startPipeline, waitFor } from './harness.ts';

// Verify end to end: the code travels to the provider only. A live message is stored masked and the send-worker
// puts the code in at hand-off; a test key's message goes to the sandbox with the code readable (test data).
jest.setTimeout(60_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
const logLines: string[] = [];
beforeAll(async () => {
  h = await startPipeline();
  // every log line of the app and the worker, at the most talkative level, to search for the code
  h.deps.logger = createLogger({ level: 'trace', name: 'verify-test' }, { write: (line: string) => void logLines.push(line) });
  await h.startWorker();
});
afterAll(() => h.close());

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];

/** Everything a code could be read back from: API answers, the stored messages, events (webhook payloads) and logs. */
async function everywhereReadable(api: Api, orgId: string, verificationId: string, answers: unknown[]) {
  const verification = (await api.get(`/v1/verifications/${verificationId}`)).body;
  const list = (await api.get('/v1/verifications')).body;
  const messages = await Promise.all(verification.messageIds.map((id: string) => api.get(`/v1/messages/${id}`).then((r) => r.body)));
  const messageList = (await api.get('/v1/messages')).body;
  const rows = await h.deps.db.message.findMany({ where: { orgId } });
  const stored = await h.deps.db.verification.findMany({ where: { orgId } });
  const events = await h.deps.db.event.findMany({ where: { orgId } });
  return JSON.stringify([answers, verification, list, messages, messageList, rows, stored, events, logLines]);
}

describe('live codes through the real providers (fake Telnyx and Resend)', () => {
  it('SMS: Telnyx gets the code; the stored body, every API answer, event and log line show only the mask; the code approves once', async () => {
    const { api, orgId } = await h.liveOrg();
    const created = await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550123' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^ver_/), status: 'pending', channelType: 'sms', to: '+14155550123', sendAttempts: 1 });
    const [messageId] = created.body.messageIds;
    const sent = await messageOnceIn(api, messageId, ['sent']);
    const atTelnyx = h.telnyx.state.messages.find((m) => m.id === sent.providerMessageId)!;
    const code = /code is (\d{6})\./.exec(atTelnyx.text)![1]!;
    expect(atTelnyx.text).toMatch(/^Your .+ verification code is \d{6}\. It expires in 10 minutes\./);
    expect(sent.body).toContain(CODE_MASK);

    const wrong = await api.post(`/v1/verifications/${created.body.id}/check`, { code: code === '000000' ? '111111' : '000000' });
    expect(wrong.body).toEqual({ id: created.body.id, status: 'pending' });
    const right = await api.post(`/v1/verifications/${created.body.id}/check`, { code });
    expect(right.body).toEqual({ id: created.body.id, status: 'approved' });
    const again = await api.post(`/v1/verifications/${created.body.id}/check`, { code });
    expect(again.status).toBe(409);
    expect(await h.deps.db.event.count({ where: { orgId, type: 'verification.approved' } })).toBe(1);

    const seen = await everywhereReadable(api, orgId, created.body.id, [created.body, wrong.body, right.body, again.body, sent]);
    expect(seen).toContain(CODE_MASK);
    expect(logLines.some((line) => line.includes(messageId))).toBe(true); // the search covers the worker's lines
    expect(seen).not.toContain(code);
  });

  it('email: Resend gets the code in text and html, never in the subject; the stored email shows the mask', async () => {
    const { api, orgId } = await h.liveOrg();
    const to = `ada-${Date.now()}@example.com`;
    const created = await api.post('/v1/verifications', { channelType: 'email', to, codeLength: 8 });
    expect(created.status).toBe(201);
    const sent = await messageOnceIn(api, created.body.messageIds[0], ['sent']);
    const atResend = h.resend.state.emails.find((e) => e.to[0] === to)!;
    const code = /code is: (\d{8})/.exec(String(atResend.text))![1]!;
    expect(String(atResend.html)).toContain(`<strong>${code}</strong>`);
    expect(atResend.subject).not.toContain(code);
    expect(await h.deps.db.message.findUniqueOrThrow({ where: { id: sent.id } })).toMatchObject({ trackOpens: false, trackClicks: false });

    expect((await api.post(`/v1/verifications/${created.body.id}/check`, { code })).body.status).toBe('approved');
    const seen = await everywhereReadable(api, orgId, created.body.id, [created.body, sent]);
    expect(seen).not.toContain(code);
  });

  it('a key that copies the metadata into its own message to someone else sends the mask, not the code', async () => {
    const { api } = await h.liveOrg();
    const created = (await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550124' })).body;
    const stored = await h.deps.db.message.findUniqueOrThrow({ where: { id: created.messageIds[0] } });
    const copy = (await api.post('/v1/messages', { channelType: 'sms', to: '+14155550125', body: stored.body, metadata: stored.metadata })).body;
    const sent = await messageOnceIn(api, copy.id, ['sent']);
    expect(h.telnyx.state.messages.find((m) => m.id === sent.providerMessageId)!.text).toContain(CODE_MASK);
  });
});

describe('test keys: the sandbox, never a live provider', () => {
  it.each(['sms', 'email'] as const)('%s: the sandbox message keeps the code readable, which checks; nothing reaches Telnyx or Resend', async (channelType) => {
    const { api } = await h.testOrg();
    const before = { sms: h.telnyx.state.messages.length, email: h.resend.state.emails.length };
    const to = channelType === 'sms' ? '+14155550126' : `test-${Date.now()}@example.com`;
    const created = await api.post('/v1/verifications', { channelType, to });
    expect(created.status).toBe(201);
    const sent = await messageOnceIn(api, created.body.messageIds[0], ['sent', 'delivered']);
    expect(sent.provider).toBe('sandbox');
    const code = /(\d{6})/.exec(sent.body ?? sent.text)![1]!;
    expect((await api.post(`/v1/verifications/${created.body.id}/check`, { code })).body.status).toBe('approved');
    expect({ sms: h.telnyx.state.messages.length, email: h.resend.state.emails.length }).toEqual(before);
  });
});

it('the code sent before a resend stops working; the resent one works', async () => {
  const { api, orgId } = await h.testOrg();
  const first = (await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550127' })).body;
  // past the 30 s cooldown without waiting for it
  await h.deps.db.verification.update({ where: { id: first.id }, data: { sentAt: [new Date(Date.now() - 31_000)] } });
  const again = await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550127' });
  expect(again.status).toBe(201);
  expect(again.body).toMatchObject({ id: first.id, sendAttempts: 2 });
  const bodies = await waitFor(async () => {
    const rows = await h.deps.db.message.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } });
    return rows.length === 2 ? rows.map((r) => /(\d{6})/.exec(r.body!)![1]!) : null;
  });
  expect(bodies[0]).not.toBe(bodies[1]);
  expect((await api.post(`/v1/verifications/${first.id}/check`, { code: bodies[0] })).body.status).toBe('pending');
  expect((await api.post(`/v1/verifications/${first.id}/check`, { code: bodies[1] })).body.status).toBe('approved');
});

it('a code whose message the provider refuses for good fails the verification, with a verification.failed event', async () => {
  const { api, orgId } = await h.liveOrg();
  h.resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' } }, '/emails');
  const created = (await api.post('/v1/verifications', { channelType: 'email', to: `refused-${Date.now()}@example.com` })).body;
  await messageOnceIn(api, created.messageIds[0], ['failed']);
  // the verification fails in the step after the message's failure commits: a moment later, not in the same statement
  await waitFor(async () => (await api.get(`/v1/verifications/${created.id}`)).body.status === 'failed', 10_000, 'the verification to fail');
  const [event] = await h.deps.db.event.findMany({ where: { orgId, type: 'verification.failed' } });
  expect(event!.data).toMatchObject({ id: created.id, status: 'failed' });
});
