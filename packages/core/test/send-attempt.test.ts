import { createTestDeps, makeOrganization, startFakeResend, type FakeResend } from '@tidings/testing';
import { attemptToSend, newId, sendMessages } from '../src/index.ts';

// Core decides, the worker carries out: each attempt's outcome is a value, recorded before it is returned.
let resend: FakeResend;
let deps: ReturnType<typeof createTestDeps>;

beforeAll(async () => {
  resend = await startFakeResend();
  deps = createTestDeps({
    EMAIL_PROVIDERS: 'resend',
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    RESEND_RATE_PER_SECOND: '10000',
    SEND_MAX_ATTEMPTS: '2',
    SEND_BACKOFF_BASE_MS: '1000',
  });
});
afterAll(async () => {
  await deps.close();
  await resend.close();
});

async function liveMessage(to: string): Promise<string> {
  const { orgId } = await makeOrganization(deps, { mode: 'live' });
  await deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
  });
  const { data } = await sendMessages({ deps, orgId, mode: 'live' }, [{ channelType: 'email', to, subject: 'Hi', text: 'Hello' }]);
  return data[0]!.id;
}
const statusOf = async (id: string) => (await deps.db.message.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;

it('sent, then done: a provider took it, and a second attempt sends nothing', async () => {
  const id = await liveMessage('ada@example.com');
  expect(await attemptToSend(deps, id, { lane: 'transactional' })).toEqual({ kind: 'sent', provider: 'resend' });
  expect(await statusOf(id)).toBe('sent');
  expect(await attemptToSend(deps, id, { lane: 'transactional' })).toEqual({ kind: 'done', reason: expect.any(String) });
  expect(resend.requests.filter((r) => r.path === '/emails' && r.body.to?.includes('ada@example.com'))).toHaveLength(1);
});

it('retry at a later time while attempts are left, then failed on the last one', async () => {
  const id = await liveMessage('bo@example.com');
  resend.failNext(2, { kind: 'status', status: 503 }, '/emails');
  const before = Date.now();
  const first = await attemptToSend(deps, id, { lane: 'transactional' });
  expect(first).toEqual({ kind: 'retry', at: expect.any(Date) });
  expect((first as { at: Date }).at.getTime()).toBeGreaterThan(before);
  expect(await statusOf(id)).toBe('sending');
  expect(await attemptToSend(deps, id, { lane: 'transactional' })).toEqual({ kind: 'failed', error: { code: 'PROVIDER_UNAVAILABLE', message: expect.any(String) } });
  expect(await statusOf(id)).toBe('failed');
});

it('failed at once when the provider refuses for good', async () => {
  const id = await liveMessage('cy@example.com');
  resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' } }, '/emails');
  expect(await attemptToSend(deps, id, { lane: 'transactional' })).toMatchObject({ kind: 'failed', error: { message: expect.stringContaining('Invalid') } });
  expect(await statusOf(id)).toBe('failed');
});
