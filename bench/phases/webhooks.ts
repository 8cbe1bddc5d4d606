// Webhook fan-out: one endpoint subscribed to contact.created, BENCH_WEBHOOK_EVENTS such events recorded in one
// transaction (recordEvents: the events, one delivery each, their outbox rows), dispatched, and delivered by one
// real webhook-worker process to a local receiver. The clock runs from recording the events to the last delivery
// marked succeeded. No floor: the figure is deliveries per second.
import { createOrganization, createWebhook, recordEvents, unitOfWork, type NewEvent } from '@tidings/core';
import type { ChildProcess } from 'node:child_process';
import { closeQueues, createQueues } from '@tidings/queue';
import { startWebhookReceiver } from '@tidings/testing';
import { drain, progress, sampleRss, startProcess, stopProcess, waitForWorker, type Bench } from '../harness.ts';

/** What `bench:cpu-cost` adds: the worker's environment, and a meter started once the worker is ready. */
type Metering = { env: Record<string, string>; start(worker: ChildProcess): Promise<() => Promise<Record<string, number>>> };

export async function measureWebhooks(bench: Bench, count: number, metering?: Metering) {
  const { db, redis, config } = bench.deps;
  const receiver = await startWebhookReceiver();
  const { organization } = await createOrganization(bench.deps, { name: 'Bench webhooks', mode: 'test' });
  const webhook = await createWebhook(bench.deps, organization.id, { url: `${receiver.url}/hook`, events: ['contact.created'] });
  const prefix = bench.prefix('webhooks');
  const queues = createQueues(redis, prefix);
  const worker = startProcess('webhook-worker', 'apps/webhook-worker/src/worker.ts', {
    ...bench.env,
    ...metering?.env,
    REDIS_PREFIX: prefix,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  try {
    await waitForWorker(queues.webhooks);
    const label = `webhook-worker (concurrency ${config.webhooks.workerConcurrency})`;
    progress(`${label}: ${count} contact.created events to one endpoint`);
    const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
      orgId: organization.id,
      type: 'contact.created',
      data: { id: `con_bench${i}`, email: `person${i}@bench.example`, firstName: `First${i}`, attributes: { plan: 'pro' } },
    }));
    const rss = sampleRss(worker.pid!);
    const stopMeter = await metering?.start(worker);
    const started = performance.now();
    const jobs = await unitOfWork(
      { ...bench.deps, queues },
      async (tx, outbox) => {
        const jobs = await recordEvents(tx, events);
        outbox.add(jobs);
        return jobs;
      },
      { timeout: 60_000 },
    );
    progress(`${label}: ${jobs.length} deliveries recorded and enqueued in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await drain(label, count, () => db.webhookDelivery.count({ where: { webhookId: webhook.id, status: 'succeeded' } }));
    const seconds = (performance.now() - started) / 1000;
    if (receiver.requests.length < count) throw new Error(`webhooks: the receiver got ${receiver.requests.length} of ${count}`);
    const figures = { deliveriesPerSecond: Math.round(count / seconds), events: count, seconds: Math.round(seconds * 10) / 10, peakRssMiB: rss.stop() };
    return { ...figures, ...(await stopMeter?.()) };
  } finally {
    await stopProcess(worker);
    await closeQueues(queues);
    await receiver.close();
  }
}
