import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createWebhook, recordEvents, unitOfWork, type OutboxItem, type UnitOfWorkDeps } from '@tidings/core';
import { createTestDeps, makeOrganization, spawnService, startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';

/** Adds jobs whose rows were written before, as a unit of work does after its commit. */
const dispatch = (deps: UnitOfWorkDeps, items: OutboxItem[]) => unitOfWork(deps, async (_db, outbox) => outbox.add(items), { transaction: false });

// Two real webhook-worker processes on one queue, a 1 s lock, and a receiver that takes 1.5 s to answer: a worker
// the machine stops scheduling for a while (here SIGSTOP, on a busy host CPU starvation) loses its jobs' locks and
// the other worker runs them again while the first one's requests are still in flight.
const DELIVERIES = 200;
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
const workers: ChildProcess[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.setDefault({ kind: 'slow', delayMs: 1_500 });
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await receiver.close();
  await deps.close();
});

/** A worker process, once it has started (its queues open): its log is read only for that, and drained. */
async function startWorkerProcess(): Promise<ChildProcess> {
  // 25 deliveries at once to the one endpoint (the default 5 made the 200 slow answers take 60 s), more than either
  // worker runs at once (20): the paused worker's slots never leave the other one without
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_WORKER_METRICS_PORT: '0',
    WEBHOOK_WORKER_LOCK_MS: '1000',
    WEBHOOK_WORKER_STALLED_INTERVAL_MS: '500',
    WEBHOOK_ENDPOINT_CONCURRENCY: '25',
  };
  const worker = spawnService(path.resolve(__dirname, '../src/worker.ts'), deps.config, env, ['ignore', 'pipe', 'ignore']);
  workers.push(worker);
  await new Promise<void>((resolve, reject) => {
    worker.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('webhook-worker started') && resolve());
    worker.once('exit', (code) => reject(new Error(`the webhook-worker exited (${code}) before it started`)));
  });
  return worker;
}

it('a worker paused mid-delivery loses its jobs to the other worker, and still no event is POSTed twice', async () => {
  const { orgId } = await makeOrganization(deps);
  const webhook = await createWebhook(deps, orgId, { url: `${receiver.url}/hook`, events: ['contact.created'] });
  const events = Array.from({ length: DELIVERIES }, (_, i) => ({ orgId, type: 'contact.created' as const, data: { i } }));
  await dispatch(deps, await deps.db.$transaction((tx) => recordEvents(tx, events)));

  const paused = await startWorkerProcess();
  await receiver.waitForRequests(5, 60_000);
  // the second worker is up before the first one stops: the pause then lasts a lock and a stalled check, well within
  // a delivery's claim (a pause past the claim cannot be told from a dead worker: the delivery is POSTed again, which
  // receivers dedupe by its webhook-id). Started after the pause, its boot on a busy machine outlasted the claim.
  await startWorkerProcess();
  paused.kill('SIGSTOP');
  // the paused worker's locks run out and the other worker's stalled check hands its jobs on
  await waitFor(async () => (await deps.queues.webhooks.getJobs(['wait', 'active', 'delayed', 'completed'])).some((job) => job.stalledCounter > 0), 60_000, 'a stalled job');
  paused.kill('SIGCONT');

  await waitFor(async () => (await deps.db.webhookDelivery.count({ where: { webhookId: webhook.id, status: 'pending' } })) === 0, 180_000, 'every delivery done');
  const requestsPerEvent = new Map<string, number>();
  for (const { headers } of receiver.requests) requestsPerEvent.set(headers['webhook-id']!, (requestsPerEvent.get(headers['webhook-id']!) ?? 0) + 1);
  expect(requestsPerEvent.size).toBe(DELIVERIES);
  expect([...requestsPerEvent].filter(([, count]) => count > 1)).toEqual([]);
  const attempts = await deps.db.webhookAttempt.groupBy({ by: ['deliveryId'], where: { delivery: { webhookId: webhook.id } }, _count: true });
  expect(attempts.filter((a) => a._count !== 1)).toEqual([]);
}, 300_000);
