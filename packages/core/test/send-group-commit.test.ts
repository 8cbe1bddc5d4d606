import { createTestDeps, makeOrganization, waitFor } from '@tidings/testing';
import type { Message } from '@tidings/contracts';
import { AppError, beginIdempotentRequest, IdempotencyKeyTaken, sendMessage } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

const email = (i: number) => ({ channelType: 'email' as const, to: `ada${i}@example.com`, subject: 'Hi', text: `Hello ${i}` });

/** The transactions that wrote these messages: rows written by one statement share its transaction id. */
async function transactionsOf(ids: string[]): Promise<number> {
  const [row] = await deps.db.$queryRaw<{ count: bigint }[]>`SELECT count(DISTINCT xmin::text) AS "count" FROM "Message" WHERE "id" = ANY(${ids}::text[])`;
  return Number(row!.count);
}

describe('Idempotency-Key reservations group commit', () => {
  it("reserves concurrent keys in shared statements; a key asked for twice at once is the first asker's, in progress for the second", async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const keys = Array.from({ length: 30 }, (_, i) => `rs-${i}`);
    const outcomes = await Promise.allSettled([...keys, 'rs-7'].map((key) => beginIdempotentRequest(deps, { orgId, mode: 'test', key }, `hash-${key}`)));
    expect(outcomes.slice(0, 30).map((o) => o.status === 'fulfilled' && o.value.kind)).toEqual(keys.map(() => 'first'));
    expect(outcomes[30]).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT', message: expect.stringMatching(/still in progress/) } });
    const [row] = await deps.db.$queryRaw<{ count: bigint }[]>`
      SELECT count(DISTINCT xmin::text) AS "count" FROM "IdempotencyRecord" WHERE "orgId" = ${orgId} AND "key" = ANY(${keys}::text[])`;
    expect(Number(row!.count)).toBeLessThan(keys.length);
  });
});

describe('message.send group commit', () => {
  it('coalesces concurrent sends into fewer statements, each with its own answer, idempotency record and error', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const other = await makeOrganization(deps, { mode: 'test' });
    const foreignContact = await deps.db.contact.create({ data: { id: `con_gc${Date.now()}`, orgId: other.orgId, email: 'x@example.com' } });
    for (let i = 0; i < 40; i += 1) expect((await beginIdempotentRequest(deps, { orgId, mode: 'test', key: `gc-${i}` }, `hash-${i}`)).kind).toBe('first');

    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        sendMessage({ deps, orgId, mode: 'test' }, i === 13 ? { ...email(i), contactId: foreignContact.id } : email(i), { key: `gc-${i}`, status: 202, body: (m) => m }),
      ),
    );

    const sent = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [{ i, message: o.value as Message }] : []));
    expect(sent).toHaveLength(39);
    expect(outcomes[13]).toMatchObject({ status: 'rejected', reason: expect.any(AppError) });
    expect((outcomes[13] as PromiseRejectedResult).reason).toMatchObject({ code: 'NOT_FOUND', message: 'Contact not found' });
    for (const { i, message } of sent) expect(message.to).toBe(`ada${i}@example.com`);
    expect(await transactionsOf(sent.map((s) => s.message.id))).toBeLessThan(39);

    // each answer is stored under its own key, naming its own message; the refused one stored nothing here
    const records = await deps.db.idempotencyRecord.findMany({ where: { orgId, mode: 'test' } });
    const answerOf = new Map(records.map((r) => [r.key, r.responseBody === null ? null : (JSON.parse(r.responseBody) as Message).id]));
    for (const { i, message } of sent) expect(answerOf.get(`gc-${i}`)).toBe(message.id);
    expect(answerOf.get('gc-13')).toBeNull();
    // every job reached its queue, and no outbox row is left behind
    for (const { message } of sent) expect(await deps.queues.email.getJob(message.id)).toBeDefined();
    await waitFor(async () => (await deps.db.outboxEntry.count({ where: { jobId: { in: sent.map((s) => s.message.id) } } })) === 0, 5_000, 'the outbox rows to be deleted');
  });
});

describe('message.send reserving its key in the write (SMTP submission)', () => {
  it('writes the messages of free keys with their answers, and nothing of a key another request holds', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const reserving = (i: number, key: string) => sendMessage({ deps, orgId, mode: 'test' }, email(i), { key, status: 202, body: (m) => m, reserve: { fingerprint: `fp-${key}` } });
    // a key in progress elsewhere (an API request holding it)
    expect((await beginIdempotentRequest(deps, { orgId, mode: 'test', key: 'held' }, 'fp-held')).kind).toBe('first');

    const outcomes = await Promise.allSettled([reserving(1, 'free-1'), reserving(2, 'free-2'), reserving(3, 'free-1'), reserving(4, 'held')]);
    const [first, second, repeat, held] = outcomes;
    expect(first).toMatchObject({ status: 'fulfilled' });
    expect(second).toMatchObject({ status: 'fulfilled' });
    // asked for twice at once: the first asker's; and the held key is left to its holder
    expect(repeat).toMatchObject({ status: 'rejected', reason: expect.any(IdempotencyKeyTaken) });
    expect(held).toMatchObject({ status: 'rejected', reason: expect.any(IdempotencyKeyTaken) });

    const messages = await deps.db.message.findMany({ where: { orgId } });
    expect(messages.map((m) => m.to).sort()).toEqual(['ada1@example.com', 'ada2@example.com']);
    // the answers were stored with the messages: nothing is left in progress
    const records = await deps.db.idempotencyRecord.findMany({ where: { orgId, key: { in: ['free-1', 'free-2'] } } });
    expect(records.map((r) => [r.key, r.responseStatus, (JSON.parse(r.responseBody!) as Message).to]).sort()).toEqual([
      ['free-1', 202, 'ada1@example.com'],
      ['free-2', 202, 'ada2@example.com'],
    ]);
    expect(await deps.db.idempotencyRecord.findFirst({ where: { orgId, key: 'held' } })).toMatchObject({ requestHash: 'fp-held', responseStatus: null });
    // a refused write recorded no event
    expect(await deps.db.event.count({ where: { orgId } })).toBe(2);
    await waitFor(async () => (await deps.db.outboxEntry.count({ where: { jobId: { in: messages.map((m) => m.id) } } })) === 0, 5_000, 'the outbox rows to be deleted');

    // sent again later: taken, and nothing written
    await expect(reserving(5, 'free-2')).rejects.toBeInstanceOf(IdempotencyKeyTaken);
    expect(await deps.db.message.count({ where: { orgId } })).toBe(2);
  });
});
