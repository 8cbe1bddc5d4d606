import { createTestDeps, makeOrganization, startFakeResend, waitFor, type FakeResend } from '@tidings/testing';
import { attemptToSend, newId, sendMessages } from '../src/index.ts';

// A broadcast's messages (the bulk lane) go to Resend through its batch endpoint, many to a call, each result mapped
// back to its own message; a run of a message again after it went out in a batch calls nobody.
let resend: FakeResend;
let deps: ReturnType<typeof createTestDeps>;

beforeAll(async () => {
  resend = await startFakeResend({ ratePerSecond: 5 });
  deps = createTestDeps({ EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_test_key', RESEND_BASE_URL: resend.url, RESEND_RATE_PER_SECOND: '5' });
});
afterAll(async () => {
  await deps.close();
  await resend.close();
});

/** `recipients` live emails marked as a broadcast's, so that they take the bulk lane. */
async function bulkMessages(recipients: string[]): Promise<{ orgId: string; ids: string[] }> {
  const { orgId } = await makeOrganization(deps, { mode: 'live' });
  await deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
  });
  const { data } = await sendMessages(
    { deps, orgId, mode: 'live' },
    recipients.map((to) => ({ channelType: 'email' as const, to, subject: 'News', text: 'Hello' })),
  );
  const ids = data.map((m) => m!.id);
  await deps.db.message.updateMany({ where: { id: { in: ids } }, data: { broadcastId: newId('brd') } });
  return { orgId, ids };
}

it('sends bulk emails in batch calls within the limit; a refused email fails alone', async () => {
  const recipients = Array.from({ length: 30 }, (_, i) => (i === 7 ? 'refused@example.com' : `b${i}@example.com`));
  const { ids } = await bulkMessages(recipients);
  const attempts = await Promise.all(ids.map((id) => attemptToSend(deps, id, { lane: 'bulk' })));
  expect(attempts.filter((a) => a.kind === 'sent')).toHaveLength(29);
  expect(attempts[7]).toMatchObject({ kind: 'failed', error: { message: expect.stringContaining('refused') } });
  const batches = resend.requests.filter((r) => r.path === '/emails/batch');
  const singles = resend.requests.filter((r) => r.path === '/emails');
  // far fewer calls than emails, and within 5 a second: none answered 429
  expect(batches.length + singles.length).toBeLessThanOrEqual(6);
  expect(batches.length).toBeGreaterThanOrEqual(1);
  expect(resend.state.counts.rateLimited).toBe(0);
  expect(batches[0]!.headers['idempotency-key']).toMatch(/^batch-[0-9a-f]{48}$/);
  expect(batches[0]!.headers['x-batch-validation']).toBe('permissive');
  const stored = await deps.db.message.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, providerMessageId: true } });
  expect(stored.filter((m) => m.status === 'sent' && m.providerMessageId)).toHaveLength(29);
  expect(new Set(resend.state.emails.map((e) => e.to[0])).size).toBe(29);
});

it('records a message sent in a batch when its job runs again, without calling Resend', async () => {
  const { ids } = await bulkMessages(['again@example.com']);
  const [id] = ids as [string];
  expect(await attemptToSend(deps, id, { lane: 'bulk' })).toEqual({ kind: 'sent', provider: 'resend' });
  const calls = resend.requests.length;
  const first = await deps.db.message.findUniqueOrThrow({ where: { id } });
  // as if its job had lost its lock after the call and ran again before `sent` was written
  await deps.db.message.update({ where: { id }, data: { status: 'sending', providerMessageId: null } });
  expect(await attemptToSend(deps, id, { lane: 'bulk' })).toEqual({ kind: 'sent', provider: 'resend' });
  expect(resend.requests.length).toBe(calls);
  expect((await deps.db.message.findUniqueOrThrow({ where: { id } })).providerMessageId).toBe(first.providerMessageId);
});

it('fills its batches while sends are still arriving, instead of spending its slots on the first few', async () => {
  const { ids } = await bulkMessages(Array.from({ length: 200 }, (_, i) => `f${i}@example.com`));
  const before = resend.requests.filter((r) => r.path === '/emails/batch').length;
  // in waves, as a worker's jobs reach the gate: a wave of 20 once the one before is claimed
  const attempts: Promise<unknown>[] = [];
  for (let i = 0; i < ids.length; i += 20) {
    const wave = ids.slice(i, i + 20);
    attempts.push(...wave.map((id) => attemptToSend(deps, id, { lane: 'bulk' })));
    await waitFor(async () => (await deps.db.message.count({ where: { id: { in: wave }, status: { not: 'queued' } } })) === wave.length, 10_000, 'the wave claimed');
  }
  expect((await Promise.all(attempts)).every((a) => (a as { kind: string }).kind === 'sent')).toBe(true);
  const sizes = resend.requests
    .filter((r) => r.path === '/emails/batch')
    .slice(before)
    .map((r) => (r.body as unknown[]).length);
  // a slot waits up to one interval (200 ms) for its batch to fill: two full batches, a third where the waves
  // came slower than that (a busy machine); before, each slot went on the first wave or two (six calls of 20 to 80)
  expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(200);
  expect(sizes.length).toBeLessThanOrEqual(3);
  expect(sizes[0]).toBeGreaterThanOrEqual(60);
});

it('a batch call left without an answer is made again as the same call, whichever run of its messages comes first: nothing is sent twice', async () => {
  // its answer comes after the provider timeout, as for a process killed during the call
  const slow = createTestDeps({ EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_test_key', RESEND_BASE_URL: resend.url, RESEND_RATE_PER_SECOND: '5', PROVIDER_TIMEOUT_MS: '300' });
  try {
    const recipients = Array.from({ length: 10 }, (_, i) => `doubt${i}@example.com`);
    const { ids } = await bulkMessages(recipients);
    const accepted = () => resend.state.emails.filter((e) => recipients.includes(String(e.to[0])));
    resend.state.respondAfterMs = 1_000;
    const first = await Promise.all(ids.map((id) => attemptToSend(slow, id, { lane: 'bulk' })));
    expect(first.every((a) => a.kind === 'retry')).toBe(true);
    expect(accepted()).toHaveLength(10); // Resend has them: the answer was lost
    resend.state.respondAfterMs = 0;
    const batchCalls = () =>
      resend.requests.filter((r) => r.path === '/emails/batch' && (r.body as { to: string | string[] }[]).some((e) => recipients.includes([e.to].flat()[0]!)));
    const [originalCall] = batchCalls();

    // one message's job runs again alone, once the call is overdue: it makes the whole call again, with the same key
    // (before: its message went in a new batch of one, under a new key, and was sent a second time)
    const [lone, ...others] = ids as [string, ...string[]];
    await waitFor(async () => (await attemptToSend(slow, lone, { lane: 'bulk' })).kind === 'sent', 10_000, 'the call in doubt made again');
    expect(batchCalls()).toHaveLength(2);
    expect(batchCalls()[1]!.headers['idempotency-key']).toBe(originalCall!.headers['idempotency-key']);
    // the other messages' runs find them sent by that call and call nobody
    const calls = resend.requests.length;
    expect((await Promise.all(others.map((id) => attemptToSend(slow, id, { lane: 'bulk' })))).map((a) => a.kind)).toEqual(others.map(() => 'sent'));
    expect(resend.requests.length).toBe(calls);
    expect(accepted()).toHaveLength(10);
    const stored = await deps.db.message.findMany({ where: { id: { in: ids } }, select: { status: true, providerMessageId: true } });
    expect(new Set(stored.map((m) => m.providerMessageId))).toEqual(new Set(accepted().map((e) => e.id)));
    expect(stored.every((m) => m.status === 'sent')).toBe(true);
  } finally {
    resend.state.respondAfterMs = 0;
    await slow.close();
  }
});
