import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createWebhook, loadDeliveryWork, recordAttempt, recordEvents, type DeliveryWork, type OutboxItem } from '../src/index.ts';

const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TIMEOUT_MS: '5000' });
afterAll(() => deps.close());

async function newDeliveryJob(): Promise<OutboxItem> {
  const { orgId } = await makeOrganization(deps);
  await createWebhook(deps, orgId, { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] });
  const [job] = await deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: { id: 'con_1' } }]));
  return job!;
}

async function newDelivery(): Promise<string> {
  return (await newDeliveryJob()).jobId;
}

async function deliverable(id: string): Promise<Extract<DeliveryWork, { kind: 'deliver' }>> {
  const work = await loadDeliveryWork(deps, id, { lane: 'transactional' });
  if (work.kind !== 'deliver') throw new Error(`expected a delivery, got ${work.kind}`);
  return work;
}

const answered = (statusCode: number) => ({ ok: statusCode < 300, statusCode, durationMs: 3, responseBody: 'x', error: null, retryAfterMs: null, refused: false });

describe('a webhook delivery in flight', () => {
  it('is claimed by the load that attempts it: a second run of its job waits for the claim (timeout + 10 s) to run out', async () => {
    const id = await newDelivery();
    await deliverable(id);
    const second = await loadDeliveryWork(deps, id, { lane: 'transactional' });
    expect(second).toEqual({ kind: 'notYet', at: expect.any(Date) });
    const waitMs = (second as { at: Date }).at.getTime() - Date.now();
    expect(waitMs).toBeGreaterThan(1_000);
    expect(waitMs).toBeLessThanOrEqual(15_000);
  });

  it('has each attempt recorded once, however often the recording is repeated', async () => {
    const succeeding = await deliverable(await newDelivery());
    await recordAttempt(deps, succeeding, answered(200));
    await recordAttempt(deps, succeeding, answered(200));
    const failing = await deliverable(await newDelivery());
    await recordAttempt(deps, failing, answered(500));
    await recordAttempt(deps, failing, answered(500));

    const rows = await deps.db.webhookDelivery.findMany({ where: { id: { in: [succeeding.deliveryId, failing.deliveryId] } }, include: { attemptsLog: true } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(succeeding.deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1, attemptsLog: [expect.objectContaining({ number: 1, statusCode: 200 })] });
    expect(byId.get(failing.deliveryId)).toMatchObject({ status: 'pending', attempts: 1, attemptsLog: [expect.objectContaining({ number: 1, statusCode: 500 })] });
  });

  it("is found by a job that carries its createdAt (its partition), by one without (an earlier version's), and by one whose createdAt is off", async () => {
    const job = await newDeliveryJob();
    const delivery = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: job.jobId } });
    expect(job.createdAt).toEqual(delivery.createdAt);
    const [{ exact }] = await deps.db.$queryRaw<{ exact: number }[]>`
      SELECT count(*)::int AS "exact" FROM "WebhookDelivery" WHERE "id" = ${job.jobId} AND "createdAt" = ${job.createdAt!.toISOString()}::timestamp`;
    expect(exact).toBe(1);
    expect(await loadDeliveryWork(deps, job.jobId, { createdAt: job.createdAt!.toISOString(), lane: 'transactional' })).toMatchObject({
      kind: 'deliver',
      createdAt: delivery.createdAt,
    });

    const withoutDate = await newDelivery();
    expect(await loadDeliveryWork(deps, withoutDate, { lane: 'transactional' })).toMatchObject({ kind: 'deliver', deliveryId: withoutDate });

    const offDate = await newDelivery();
    expect(await loadDeliveryWork(deps, offDate, { createdAt: '2020-01-01T00:00:00.000Z', lane: 'transactional' })).toMatchObject({ kind: 'deliver', deliveryId: offDate });
    expect(await loadDeliveryWork(deps, 'dlv_missing', { createdAt: '2020-01-01T00:00:00.000Z', lane: 'transactional' })).toEqual({ kind: 'done', reason: 'no such delivery' });
  });

  it('records a success and a failure of a delivery loaded through its partition', async () => {
    const succeeding = await newDeliveryJob();
    const failing = await newDeliveryJob();
    const succeeded = await loadDeliveryWork(deps, succeeding.jobId, { createdAt: succeeding.createdAt!.toISOString(), lane: 'transactional' });
    const failed = await loadDeliveryWork(deps, failing.jobId, { createdAt: failing.createdAt!.toISOString(), lane: 'transactional' });
    if (succeeded.kind !== 'deliver' || failed.kind !== 'deliver') throw new Error('expected deliveries');
    await recordAttempt(deps, succeeded, answered(200));
    await recordAttempt(deps, failed, answered(500));
    const rows = await deps.db.webhookDelivery.findMany({ where: { id: { in: [succeeding.jobId, failing.jobId] } }, include: { attemptsLog: true } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(succeeding.jobId)).toMatchObject({ status: 'succeeded', attempts: 1, attemptsLog: [expect.objectContaining({ statusCode: 200 })] });
    expect(byId.get(failing.jobId)).toMatchObject({ status: 'pending', attempts: 1, attemptsLog: [expect.objectContaining({ statusCode: 500 })] });
  });

  it('is claimed in claimedUntil, not nextAttemptAt (in no index: a HOT update), and a failed attempt frees it for its retry', async () => {
    const work = await deliverable(await newDelivery());
    const claimed = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: work.deliveryId } });
    expect(claimed.nextAttemptAt).toEqual(claimed.createdAt);
    expect(claimed.claimedUntil!.getTime()).toBeGreaterThan(Date.now());

    await recordAttempt(deps, work, answered(500));
    const failed = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: work.deliveryId } });
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, claimedUntil: null });
    // the retry falls due
    await deps.db.webhookDelivery.update({ where: { id: work.deliveryId }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
    expect(await loadDeliveryWork(deps, work.deliveryId, { lane: 'transactional' })).toMatchObject({ kind: 'deliver', attempts: 1 });
  });
});
