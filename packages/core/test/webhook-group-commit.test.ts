import { createTestDeps, lockWaiters, makeOrganization, waitFor } from '@tidings/testing';
import { createWebhook, loadDeliveryWork, recordAttempt, recordEvents } from '../src/index.ts';

const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
afterAll(() => deps.close());

describe('webhook-worker group commit', () => {
  it('loads and records concurrent successful deliveries in shared statements, each with its own event and attempt', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const webhook = await createWebhook(deps, orgId, { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] });
    const failingSince = new Date(Date.now() - 60_000);
    await deps.db.webhook.update({ where: { id: webhook.id }, data: { failingSince } });
    const jobs = await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: 10 }, (_, i) => ({ orgId, type: 'contact.created' as const, data: { id: `con_${i}` } })),
      ),
    );
    const ids = jobs.map((j) => j.jobId);

    const works = await Promise.all(ids.map((id) => loadDeliveryWork(deps, id, { lane: 'transactional' })));
    for (const work of works) {
      if (work.kind !== 'deliver') throw new Error(`expected a delivery, got ${work.kind}`);
      expect(JSON.parse(work.body)).toMatchObject({ id: work.messageId, type: 'contact.created', data: { id: expect.stringMatching(/^con_\d$/) } });
      expect(work.failingSince).toEqual(failingSince);
    }
    const bodies = new Set(works.map((w) => (w.kind === 'deliver' ? JSON.parse(w.body).data.id : null)));
    expect(bodies.size).toBe(10);

    const result = { ok: true, statusCode: 200, durationMs: 3, responseBody: 'ok', error: null, retryAfterMs: null, refused: false };
    const outcomes = await Promise.all(works.map((work) => recordAttempt(deps, work as Extract<typeof work, { kind: 'deliver' }>, result)));
    expect(outcomes.every((o) => o.kind === 'succeeded')).toBe(true);

    const deliveries = await deps.db.webhookDelivery.findMany({ where: { id: { in: ids } }, include: { attemptsLog: true } });
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, nextAttemptAt: null, completedAt: expect.any(Date) });
      expect(d.attemptsLog).toEqual([expect.objectContaining({ number: 1, statusCode: 200, responseBody: 'ok' })]);
    }
    const [row] = await deps.db.$queryRaw<{ count: bigint }[]>`SELECT count(DISTINCT xmin::text) AS "count" FROM "WebhookAttempt" WHERE "deliveryId" = ANY(${ids}::text[])`;
    expect(Number(row!.count)).toBeLessThan(ids.length);
    // a success ends the endpoint's failing streak
    expect((await deps.db.webhook.findUniqueOrThrow({ where: { id: webhook.id } })).failingSince).toBeNull();
    // a delivery done already is done, read through the same shared load
    expect(await loadDeliveryWork(deps, ids[0]!, { lane: 'transactional' })).toEqual({ kind: 'done', reason: 'already succeeded' });
  });

  it("a single event's delivery is loaded while the bulk lane's group waits: each lane has its own statement in flight", async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    await createWebhook(deps, orgId, { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] });
    const jobs = await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        ['bulk', 'single'].map((id) => ({ orgId, type: 'contact.created' as const, data: { id } })),
      ),
    );
    const [bulkId, singleId] = jobs.map((j) => j.jobId);
    let bulkLoad: Promise<unknown> | undefined;
    await deps.db.$transaction(
      async (tx) => {
        // the bulk lane's group statement waits on this row lock until the transaction ends
        await tx.$queryRaw`SELECT 1 FROM "WebhookDelivery" WHERE "id" = ${bulkId} FOR UPDATE`;
        bulkLoad = loadDeliveryWork(deps, bulkId!, { lane: 'bulk' });
        await waitFor(async () => (await lockWaiters(deps.db)) > 0, 5_000, "the bulk lane's load to wait on the lock");
        // shared groups (one statement in flight) held this load until the lock went: past the transaction's timeout
        expect(await loadDeliveryWork(deps, singleId!, { lane: 'transactional' })).toMatchObject({ kind: 'deliver', deliveryId: singleId, lane: 'transactional' });
      },
      { timeout: 10_000 },
    );
    expect(await bulkLoad).toMatchObject({ kind: 'deliver', deliveryId: bulkId, lane: 'bulk' });
  });
});
