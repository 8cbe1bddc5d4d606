import { createWebhook, recordEvents, unitOfWork, type OutboxItem, type UnitOfWorkDeps } from '@tidings/core';
import { createTestDeps, makeOrganization, mostAttemptsInFlight, startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';
import { startWebhookWorker, type WebhookWorker } from '../src/index.ts';

/** Adds jobs whose rows were written before, as a unit of work does after its commit. */
const dispatch = (deps: UnitOfWorkDeps, items: OutboxItem[]) => unitOfWork(deps, async (_db, outbox) => outbox.add(items), { transaction: false });

// One worker with 4 slots, at most 2 per endpoint, a 5 s timeout, and retries far off (each delivery is tried once here).
const CAP = 2;
const deps = createTestDeps({
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_WORKER_CONCURRENCY: '4',
  WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_RETRY_SCHEDULE_MS: '600000',
});
let hanging: WebhookReceiver;
let fast: WebhookReceiver;
let worker: WebhookWorker | undefined;

beforeAll(async () => {
  hanging = await startWebhookReceiver();
  hanging.setDefault({ kind: 'hang' });
  fast = await startWebhookReceiver();
});
afterAll(async () => {
  // the hanging requests end with the receiver, so the worker's close does not wait out their timeout
  await hanging.close();
  await fast.close();
  await worker?.close();
  await deps.close();
});

it("an endpoint that hangs holds only its own slots: another organization's deliveries go meanwhile, and the hanging one's are all tried", async () => {
  const a = await makeOrganization(deps);
  const b = await makeOrganization(deps);
  const hangingHook = await createWebhook(deps, a.orgId, { url: `${hanging.url}/hook`, events: ['contact.created'] });
  await createWebhook(deps, b.orgId, { url: `${fast.url}/hook`, events: ['contact.created'] });
  // A's 8 deliveries are first in the queue, B's 6 behind them
  const event = (orgId: string, i: number) => ({ orgId, type: 'contact.created' as const, data: { i } });
  await dispatch(
    deps,
    await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: 8 }, (_, i) => event(a.orgId, i)),
      ),
    ),
  );
  await dispatch(
    deps,
    await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: 6 }, (_, i) => event(b.orgId, i)),
      ),
    ),
  );

  worker = startWebhookWorker(deps);
  await fast.waitForRequests(6, 30_000);
  // without the cap A's deliveries took all 4 slots, and B's waited for their timeouts
  expect(hanging.requests.length).toBeLessThanOrEqual(CAP);

  // every one of A's deliveries is tried (parked ones are woken as slots free), times out, and waits for its retry
  await waitFor(
    async () => (await deps.db.webhookDelivery.count({ where: { webhookId: hangingHook.id, attempts: 1, status: 'pending', nextAttemptAt: { not: null } } })) === 8,
    120_000,
    "each of A's deliveries tried once",
  );
  expect(hanging.requests.length).toBe(8);
  expect(await mostAttemptsInFlight(deps, hangingHook.id)).toBeLessThanOrEqual(CAP);
  const errors = await deps.db.webhookAttempt.findMany({ where: { delivery: { webhookId: hangingHook.id } }, select: { error: true } });
  expect(errors.every((e) => /timed out|timeout/i.test(e.error ?? ''))).toBe(true);
  // parked and retried jobs carry their endpoint: their next run checks its slots in Redis before claiming in Postgres
  const aDeliveries = await deps.db.webhookDelivery.findMany({ where: { webhookId: hangingHook.id }, select: { id: true } });
  const jobs = await Promise.all(aDeliveries.map((d) => deps.queues.webhooks.getJob(d.id)));
  expect(jobs.map((j) => j?.data.webhookId)).toEqual(aDeliveries.map(() => hangingHook.id));
}, 180_000);

it("a fast endpoint's backlog waits for its slots in the worker instead of parking, so the cap bounds what it holds, not its rate", async () => {
  const c = await makeOrganization(deps);
  const hook = await createWebhook(deps, c.orgId, { url: `${fast.url}/fast`, events: ['contact.created'] });
  const parked = async () => (await deps.metrics.webhookDeliveries.get()).values.find((v) => v.labels.outcome === 'parked')?.value ?? 0;
  const parkedBefore = await parked();
  const count = 300;
  await dispatch(
    deps,
    await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: count }, (_, i) => ({ orgId: c.orgId, type: 'contact.created' as const, data: { i } })),
      ),
    ),
  );
  worker ??= startWebhookWorker(deps);
  await waitFor(async () => (await deps.db.webhookDelivery.count({ where: { webhookId: hook.id, status: 'succeeded' } })) === count, 60_000, `${count} deliveries`);
  expect(await mostAttemptsInFlight(deps, hook.id)).toBeLessThanOrEqual(CAP);
  // only the first few, before the endpoint's speed is known here, and a few more should the machine slow a delivery
  // past the fast mark (before, every job beyond the cap parked: about 290 of 300, at 20 a second at most)
  expect((await parked()) - parkedBefore).toBeLessThan(count / 10);
}, 120_000);
