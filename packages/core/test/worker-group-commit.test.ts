import { createTestDeps, lockWaiters, makeOrganization, waitFor } from '@tidings/testing';
import { claimForSending, markSent, sendMessages } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

/** How many transactions wrote these status events: rows written by one statement share its transaction id. */
async function transactionsOf(messageIds: string[], status: string): Promise<number> {
  const [row] = await deps.db.$queryRaw<{ count: bigint }[]>`
    SELECT count(DISTINCT xmin::text) AS "count" FROM "MessageStatusEvent" WHERE "messageId" = ANY(${messageIds}::text[]) AND "status" = ${status}::"MessageStatus"`;
  return Number(row!.count);
}

describe('send-worker group commit', () => {
  it('claims and marks sent concurrent jobs in shared statements, each message with its own outcome, provider id and webhook delivery', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    await deps.db.suppression.create({ data: { orgId, recipient: 'gone@example.com', reason: 'bounced' } });
    const webhook = await deps.db.webhook.create({
      data: { id: `whk_gc${Date.now()}`, orgId, mode: 'test', url: 'https://example.com/hook', events: ['message.sent'], secretCiphertext: 'x' },
    });
    const to = Array.from({ length: 12 }, (_, i) => (i === 5 ? 'gone@example.com' : `ada${i}@example.com`));
    const { data } = await sendMessages(
      { deps, orgId, mode: 'test' },
      to.map((address) => ({ channelType: 'email', to: address, subject: 'Hi', text: 'Hello' })),
    );
    const ids = data.map((m) => m!.id);

    const claims = await Promise.all(ids.map((id) => claimForSending(deps, id, 'transactional')));
    expect(claims[5]).toEqual({ kind: 'done', reason: 'suppressed' });
    const claimed = ids.filter((_, i) => i !== 5);
    for (const [i, claim] of claims.entries()) {
      if (i === 5) continue;
      expect(claim).toMatchObject({ kind: 'send', message: { id: ids[i], status: 'sending', attempts: 1 } });
    }
    expect(await transactionsOf(claimed, 'sending')).toBeLessThan(claimed.length);

    await Promise.all(claimed.map((id) => markSent(deps, { id, broadcastId: null }, { provider: 'sandbox', providerMessageId: `p-${id}` })));
    const rows = await deps.db.message.findMany({ where: { id: { in: ids } } });
    for (const row of rows) {
      if (row.id === ids[5]) expect(row).toMatchObject({ status: 'failed', errorCode: 'SUPPRESSED' });
      else expect(row).toMatchObject({ status: 'sent', provider: 'sandbox', providerMessageId: `p-${row.id}` });
    }
    expect(await transactionsOf(claimed, 'sent')).toBeLessThan(claimed.length);
    // each message.sent event carries its own message and has its own delivery, whose job reached the queue
    const deliveries = await deps.db.webhookDelivery.findMany({ where: { webhookId: webhook.id, eventType: 'message.sent' } });
    const events = await deps.db.event.findMany({ where: { id: { in: deliveries.map((d) => d.eventId) } } });
    expect(events.map((e) => (e.data as { id: string }).id).sort()).toEqual([...claimed].sort());
    for (const delivery of deliveries) expect(await deps.queues.webhooks.getJob(delivery.id)).toBeDefined();
    await waitFor(async () => (await deps.db.outboxEntry.count({ where: { jobId: { in: deliveries.map((d) => d.id) } } })) === 0, 5_000, 'the outbox rows to be deleted');
  });

  it("writes one job's claim and another's sent mark in the same statement; a message marked sent is not claimed beside it", async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const { data } = await sendMessages(
      { deps, orgId, mode: 'test' },
      Array.from({ length: 8 }, (_, i) => ({ channelType: 'email' as const, to: `bo${i}@example.com`, subject: 'Hi', text: 'Hello' })),
    );
    const ids = data.map((m) => m!.id);
    const [sending, queued] = [ids.slice(0, 4), ids.slice(4)];
    await Promise.all(sending.map((id) => claimForSending(deps, id, 'transactional')));

    // the same event-loop turn: one group; the last claim is a second job of a message being marked sent
    const [claims] = await Promise.all([
      Promise.all([...queued, sending[0]!].map((id) => claimForSending(deps, id, 'transactional'))),
      Promise.all(sending.map((id) => markSent(deps, { id, broadcastId: null }, { provider: 'sandbox', providerMessageId: `p-${id}` }))),
    ]);
    for (const claim of claims.slice(0, 4)) expect(claim).toMatchObject({ kind: 'send', message: { status: 'sending', attempts: 1 } });
    expect(claims[4]).toEqual({ kind: 'done', reason: 'sent' });
    const [row] = await deps.db.$queryRaw<{ count: bigint }[]>`
      SELECT count(DISTINCT xmin::text) AS "count" FROM "MessageStatusEvent"
      WHERE ("messageId" = ANY(${queued}::text[]) AND "status" = 'sending') OR ("messageId" = ANY(${sending}::text[]) AND "status" = 'sent')`;
    expect(Number(row!.count)).toBe(1);
    expect(await deps.db.message.count({ where: { id: { in: sending }, status: 'sent', attempts: 1 } })).toBe(4);
  });

  it("a single send's claim does not wait behind the bulk lane's group: each lane has its own statement in flight", async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const { data } = await sendMessages(
      { deps, orgId, mode: 'test' },
      ['bulk', 'single'].map((name) => ({ channelType: 'email' as const, to: `${name}@example.com`, subject: 'Hi', text: 'Hello' })),
    );
    const [bulkId, singleId] = data.map((m) => m!.id);
    let bulkClaim: Promise<unknown> | undefined;
    await deps.db.$transaction(
      async (tx) => {
        // the bulk lane's group statement waits on this row lock until the transaction ends
        await tx.$queryRaw`SELECT 1 FROM "Message" WHERE "id" = ${bulkId} FOR UPDATE`;
        bulkClaim = claimForSending(deps, bulkId!, 'bulk');
        await waitFor(async () => (await lockWaiters(deps.db)) > 0, 5_000, "the bulk lane's claim to wait on the lock");
        // shared groups (one statement in flight) held this claim until the lock went: past the transaction's timeout
        expect(await claimForSending(deps, singleId!, 'transactional')).toMatchObject({ kind: 'send', message: { id: singleId, status: 'sending' } });
      },
      { timeout: 10_000 },
    );
    expect(await bulkClaim).toMatchObject({ kind: 'send', message: { id: bulkId, status: 'sending' } });
  });
});
