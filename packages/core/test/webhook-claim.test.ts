import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createWebhook, loadDeliveryWork, recordAttempt, recordEvents, type DeliveryWork } from '../src/index.ts';

const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TIMEOUT_MS: '5000' });
afterAll(() => deps.close());

async function newDelivery(): Promise<string> {
  const { orgId } = await makeOrganization(deps);
  await createWebhook(deps, orgId, { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] });
  const [job] = await deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: { id: 'con_1' } }]));
  return job!.jobId;
}

async function deliverable(id: string): Promise<Extract<DeliveryWork, { kind: 'deliver' }>> {
  const work = await loadDeliveryWork(deps, id);
  if (work.kind !== 'deliver') throw new Error(`expected a delivery, got ${work.kind}`);
  return work;
}

const answered = (statusCode: number) => ({ ok: statusCode < 300, statusCode, durationMs: 3, responseBody: 'x', error: null, retryAfterMs: null, refused: false });

describe('a webhook delivery in flight', () => {
  it('is claimed by the load that attempts it: a second run of its job waits for the claim (timeout + 10 s) to run out', async () => {
    const id = await newDelivery();
    await deliverable(id);
    const second = await loadDeliveryWork(deps, id);
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
});
