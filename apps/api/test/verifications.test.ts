import { newId } from '@tidings/core';
import { setupApi } from './setup.ts';

// Verify through the HTTP app (no send-worker: a test key's message keeps its code readable, so the stored row is
// where a test reads it): limits, expiry, cancel, isolation between organizations and key modes, templates.
jest.setTimeout(120_000);
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000' });
afterAll(() => t.close());

type Api = Awaited<ReturnType<typeof t.org>>['api'];

/** The code in the verification's latest message (a test key's: readable). */
async function latestCode(verificationId: string): Promise<string> {
  const verification = await t.deps.db.verification.findUniqueOrThrow({ where: { id: verificationId } });
  const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: verification.messageIds.at(-1)! } });
  return /(\d{4,10})/.exec(message.body ?? message.text!)![1]!;
}

const wrongCodeFor = (code: string) => code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));

async function create(api: Api, to = `p-${newId('con')}@example.com`, extra: object = {}) {
  const res = await api.post('/v1/verifications', { channelType: 'email', to, ...extra });
  expect(res.status === 201 ? 201 : res.body).toBe(201);
  return res.body;
}

it('a wrong code answers pending; the fifth is max_attempts_reached, and then even the right code is refused', async () => {
  const { api } = await t.org({ mode: 'test' });
  const v = await create(api);
  const code = await latestCode(v.id);
  for (let attempt = 1; attempt <= 4; attempt++) expect((await api.post(`/v1/verifications/${v.id}/check`, { code: wrongCodeFor(code) })).body.status).toBe('pending');
  expect((await api.post(`/v1/verifications/${v.id}/check`, { code: wrongCodeFor(code) })).body.status).toBe('max_attempts_reached');
  expect((await api.post(`/v1/verifications/${v.id}/check`, { code })).body.status).toBe('max_attempts_reached');
  expect((await api.get(`/v1/verifications/${v.id}`)).body).toMatchObject({ status: 'max_attempts_reached', checkAttempts: 5, approvedAt: null });
});

it('compares the whole keyed hash: a stored hash one hex digit off, first or last, refuses the right code', async () => {
  const { api } = await t.org({ mode: 'test' });
  for (const position of ['first', 'last'] as const) {
    const v = await create(api);
    const code = await latestCode(v.id);
    const { codeHash } = await t.deps.db.verification.findUniqueOrThrow({ where: { id: v.id } });
    const flip = (digit: string) => (digit === '0' ? '1' : '0');
    const altered = position === 'first' ? flip(codeHash[0]!) + codeHash.slice(1) : codeHash.slice(0, -1) + flip(codeHash.at(-1)!);
    await t.deps.db.verification.update({ where: { id: v.id }, data: { codeHash: altered } });
    expect((await api.post(`/v1/verifications/${v.id}/check`, { code })).body.status).toBe('pending');
    await t.deps.db.verification.update({ where: { id: v.id }, data: { codeHash } });
    expect((await api.post(`/v1/verifications/${v.id}/check`, { code })).body.status).toBe('approved');
  }
});

it('expires: the check after expiresAt answers expired and records verification.expired; cancel is then 409', async () => {
  const { api, orgId } = await t.org({ mode: 'test' });
  const v = await create(api, undefined, { expiresInSeconds: 60 });
  expect(new Date(v.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
  const code = await latestCode(v.id);
  await t.deps.db.verification.update({ where: { id: v.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await api.get(`/v1/verifications/${v.id}`)).body.status).toBe('expired');
  expect((await api.post(`/v1/verifications/${v.id}/check`, { code })).body.status).toBe('expired');
  expect(await t.deps.db.event.count({ where: { orgId, type: 'verification.expired' } })).toBe(1);
  const cancel = await api.post(`/v1/verifications/${v.id}/cancel`);
  expect(cancel.status).toBe(409);
  expect(cancel.body.message).toMatch(/expired/);
});

it('cancel: the code stops working; a second cancel and a spent verification are 409', async () => {
  const { api } = await t.org({ mode: 'test' });
  const v = await create(api);
  const code = await latestCode(v.id);
  expect((await api.post(`/v1/verifications/${v.id}/cancel`)).body).toMatchObject({ id: v.id, status: 'canceled' });
  expect((await api.post(`/v1/verifications/${v.id}/check`, { code })).body.status).toBe('canceled');
  expect((await api.post(`/v1/verifications/${v.id}/cancel`)).status).toBe(409);
  const spent = await create(api);
  expect((await api.post(`/v1/verifications/${spent.id}/check`, { code: await latestCode(spent.id) })).body.status).toBe('approved');
  expect((await api.post(`/v1/verifications/${spent.id}/cancel`)).status).toBe(409);
});

it('resend cooldown: 30 s, then 60 s, with Retry-After; the resend is the same verification with a new code', async () => {
  const { api } = await t.org({ mode: 'test' });
  const to = `cool-${newId('con')}@example.com`;
  const v = await create(api, to);
  const early = await api.post('/v1/verifications', { channelType: 'email', to });
  expect(early.status).toBe(429);
  expect(early.body.code).toBe('RATE_LIMITED');
  expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(25);
  expect(Number(early.headers.get('retry-after'))).toBeLessThanOrEqual(30);
  await t.deps.db.verification.update({ where: { id: v.id }, data: { sentAt: [new Date(Date.now() - 31_000)] } });
  const resent = await api.post('/v1/verifications', { channelType: 'email', to });
  expect(resent.status).toBe(201);
  expect(resent.body).toMatchObject({ id: v.id, sendAttempts: 2 });
  expect(resent.body.messageIds).toHaveLength(2);
  const second = await api.post('/v1/verifications', { channelType: 'email', to });
  expect(second.status).toBe(429);
  expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(55);
});

it('at most 5 codes per 10 minutes to one recipient: the sixth is 429 until the oldest leaves the window', async () => {
  const { api } = await t.org({ mode: 'test' });
  const to = `cap-${newId('con')}@example.com`;
  const v = await create(api, to);
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
  // five sends 9 to 2 minutes ago, the cooldown long past
  await t.deps.db.verification.update({ where: { id: v.id }, data: { sendAttempts: 1, sentAt: [9, 7, 5, 3, 2].map(minutesAgo) } });
  const capped = await api.post('/v1/verifications', { channelType: 'email', to });
  expect({ status: capped.status, code: capped.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(capped.body.message).toMatch(/5 codes/);
  const retryAfter = Number(capped.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(50);
  expect(retryAfter).toBeLessThanOrEqual(60);
  await t.deps.db.verification.update({ where: { id: v.id }, data: { sentAt: [11, 7, 5, 3, 2].map(minutesAgo) } });
  expect((await api.post('/v1/verifications', { channelType: 'email', to })).status).toBe(201);
});

it("another organization's verification is 404 for get, check and cancel, and nothing changes", async () => {
  const { api } = await t.org({ mode: 'test' });
  const other = await t.org({ mode: 'test' });
  const v = await create(api);
  const code = await latestCode(v.id);
  for (const res of [
    await other.api.get(`/v1/verifications/${v.id}`),
    await other.api.post(`/v1/verifications/${v.id}/check`, { code }),
    await other.api.post(`/v1/verifications/${v.id}/cancel`),
  ]) {
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain(v.to);
  }
  expect((await other.api.get('/v1/verifications')).body.data).toEqual([]);
  expect(await t.deps.db.verification.findUniqueOrThrow({ where: { id: v.id } })).toMatchObject({ status: 'pending', checkAttempts: 0 });
});

it("a test key reads and changes no live verification, and a live organization's settings are not its to change", async () => {
  const { api: live, orgId } = await t.org({ mode: 'live' });
  await t.deps.db.phoneNumber.create({
    data: { id: newId('pn'), orgId, number: `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`, type: 'local', provider: 'sandbox', isDefault: true },
  });
  const created = await live.post('/v1/verifications', { channelType: 'sms', to: '+14155550100' });
  expect(created.status).toBe(201);
  const stored = await t.deps.db.message.findUniqueOrThrow({ where: { id: created.body.messageIds[0] } });
  expect(stored.body).toContain('******');
  const testKey = (await live.post('/v1/api-keys', { name: 'test', mode: 'test' })).body;
  const test = t.client(testKey.key);
  expect((await test.get(`/v1/verifications/${created.body.id}`)).status).toBe(404);
  expect((await test.post(`/v1/verifications/${created.body.id}/check`, { code: '123456' })).status).toBe(404);
  expect((await test.post(`/v1/verifications/${created.body.id}/cancel`)).status).toBe(404);
  expect((await test.get('/v1/verifications')).body.data).toEqual([]);
  expect((await test.patch('/v1/organization', { smsCountries: ['GB'] })).status).toBe(403);
  expect(await t.deps.db.verification.findUniqueOrThrow({ where: { id: created.body.id } })).toMatchObject({ status: 'pending', checkAttempts: 0, sendAttempts: 1 });
  // a test key's own verification to the same recipient is its own: no cooldown shared with the live one
  expect((await test.post('/v1/verifications', { channelType: 'sms', to: '+14155550100' })).status).toBe(201);
});

it('a template replaces the default text and must use {{ code }}', async () => {
  const { api, orgId } = await t.org({ mode: 'test' });
  const good = (await api.post('/v1/templates', { name: 'Code', channelType: 'sms', body: 'Acme: {{ code }} is your code ({{ locale }})' })).body;
  const bad = (await api.post('/v1/templates', { name: 'No code', channelType: 'sms', body: 'Hello there' })).body;
  const refused = await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550101', templateId: bad.id });
  expect(refused.status).toBe(400);
  expect(refused.body.message).toMatch(/\{\{ code \}\}/);
  // this organization's: the worker's database is shared with the files before it (sms-fraud-guard's verifies this number)
  expect(await t.deps.db.verification.count({ where: { orgId, to: '+14155550101' } })).toBe(0);
  const v = (await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550101', templateId: good.id, locale: 'fr' })).body;
  const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: v.messageIds[0] } });
  expect(message.body).toMatch(/^Acme: \d{6} is your code \(fr\)$/);
});

it('rejects bad input with a 400 naming the field and writes nothing', async () => {
  const { api, orgId } = await t.org({ mode: 'test' });
  for (const body of [
    { channelType: 'sms', to: 'not-a-number' },
    { channelType: 'email', to: 'x@example.com', codeLength: 3 },
    { channelType: 'email', to: 'x@example.com', expiresInSeconds: 3601 },
    { channelType: 'fax', to: 'x' },
  ]) {
    const res = await api.post('/v1/verifications', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  }
  expect(await t.deps.db.verification.count({ where: { orgId } })).toBe(0);
});

it('1,000 verifications created and checked concurrently: none lost, each approved exactly once', async () => {
  const { api, orgId } = await t.org({ mode: 'test' });
  const count = Number(process.env.VERIFY_MANY ?? 1000);
  const ids: string[] = [];
  const inParallel = async <T>(items: T[], width: number, run: (item: T) => Promise<void>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < items.length) await run(items[next++]!);
      }),
    );
  };
  // "busy: nothing was done, retry in 1 s" (no pool connection in time) and a statement timeout (rolled back) are
  // retried, as the SDK does: on a loaded machine either may answer any of the 3,000 requests
  const call = async (path: string, body: object) => {
    for (;;) {
      const res = await api.post(path, body);
      if ((res.status !== 500 && res.status !== 503) || !res.headers.get('retry-after')) return res;
    }
  };
  await inParallel([...Array(count).keys()], 20, async (i) => {
    const res = await call('/v1/verifications', { channelType: 'email', to: `many-${i}@example.com` });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  });
  expect(new Set(ids).size).toBe(count);
  const messages = await t.deps.db.message.findMany({ where: { orgId }, select: { text: true, metadata: true } });
  expect(messages).toHaveLength(count);
  const codeOf = new Map(messages.map((m) => [(m.metadata as Record<string, string>).verificationId!, /is: (\d{6})/.exec(m.text!)![1]!]));
  // every verification checked twice at once with its right code: one approval, one 409
  const outcomes: number[] = [];
  await inParallel(
    ids.flatMap((id) => [id, id]),
    40,
    async (id) => {
      const res = await call(`/v1/verifications/${id}/check`, { code: codeOf.get(id) });
      outcomes.push(res.status);
    },
  );
  expect(outcomes.filter((s) => s !== 200 && s !== 409)).toEqual([]);
  expect(outcomes.filter((s) => s === 200)).toHaveLength(count);
  expect(outcomes.filter((s) => s === 409)).toHaveLength(count);
  expect(await t.deps.db.verification.count({ where: { orgId, status: 'approved' } })).toBe(count);
  expect(await t.deps.db.event.count({ where: { orgId, type: 'verification.approved' } })).toBe(count);
}, 360_000); // 3,000 requests: minutes on a machine under load
