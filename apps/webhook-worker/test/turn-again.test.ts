import { randomUUID } from 'node:crypto';
import { createWebhook, recordEvents, unitOfWork } from '@tidings/core';
import { bullPrefix, deliveryIdOfJob, type JobData } from '@tidings/queue';
import { createTestDeps, makeOrganization, startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { DelayedError, Worker } from 'bullmq';
import { deliverWebhook } from '../src/deliver-webhook.processor.ts';
import { endpointSlots } from '../src/endpoint-slots.ts';

// Jobs taken one by one from the transactional lane (a worker without a processor), so that the order the lane would
// serve them in is read from BullMQ itself at each step. Retries are far off: a delayed job comes back by `promote`.
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_ENDPOINT_CONCURRENCY: '1', WEBHOOK_RETRY_SCHEDULE_MS: '600000' });
const slots = endpointSlots(deps);
const deliver = deliverWebhook(deps, { slots });
let failing: WebhookReceiver;
let fast: WebhookReceiver;
let taker: Worker<JobData['webhooks']>;

beforeAll(async () => {
  failing = await startWebhookReceiver();
  failing.setDefault({ kind: 'status', status: 500 });
  fast = await startWebhookReceiver();
  taker = new Worker('webhooks', null, { connection: deps.redis, prefix: bullPrefix(deps.config.redisPrefix, 'webhooks', deps.redis.isCluster) });
});
afterAll(async () => {
  await taker.close();
  await failing.close();
  await fast.close();
  await deps.close();
});

/** Dispatches `count` events of `orgId`, as a request does: each delivery's job takes its organization's turn. */
async function events(orgId: string, count: number): Promise<void> {
  await unitOfWork(deps, async (tx, outbox) =>
    outbox.add(
      await recordEvents(
        tx,
        Array.from({ length: count }, (_, i) => ({ orgId, type: 'contact.created' as const, data: { i } })),
      ),
    ),
  );
}

/** Takes the lane's next job and runs the processor on it, as a worker slot does; true when the job waits again. */
async function runNext(): Promise<{ orgId: string; waits: boolean; jobId: string }> {
  const token = randomUUID();
  const job = (await taker.getNextJob(token, { block: false }))!;
  const waits = await deliver(job, token).then(
    () => false,
    (error) => {
      if (error instanceof DelayedError) return true;
      throw error;
    },
  );
  const delivery = await deps.db.webhookDelivery.findFirstOrThrow({ where: { id: job.data.deliveryId }, select: { orgId: true } });
  return { orgId: delivery.orgId, waits, jobId: job.id! };
}

/** The lane's waiting jobs in the order they would be served (by score: turn, then order of adding), each named by `name`. */
async function waitingOrder(name: (jobId: string, orgId: string) => string = (_, orgId) => orgId): Promise<string[]> {
  const ids = await deps.redis.zrange(deps.queues.webhooks.keys.prioritized!, '0', '-1');
  const orgs = await deps.db.webhookDelivery.findMany({ where: { id: { in: ids.map(deliveryIdOfJob) } }, select: { id: true, orgId: true } });
  const orgOf = new Map(orgs.map((d) => [d.id, d.orgId]));
  return ids.map((id) => name(id, orgOf.get(deliveryIdOfJob(id))!));
}

it("a retried delivery comes back in a fresh turn, behind another organization's delivery added while it waited", async () => {
  const a = await makeOrganization(deps);
  const b = await makeOrganization(deps);
  await createWebhook(deps, a.orgId, { url: `${failing.url}/hook`, events: ['contact.created'] });
  await createWebhook(deps, b.orgId, { url: `${fast.url}/hook`, events: ['contact.created'] });
  await events(a.orgId, 3);
  // A's first delivery fails and waits for its retry
  const first = await runNext();
  expect(first).toMatchObject({ orgId: a.orgId, waits: true });
  await events(b.orgId, 1);
  // its retry comes due: before, it came back in the turn it was added with, ahead of B's and of A's own
  await (await deps.queues.webhooks.getJob(first.jobId))!.promote();
  expect(await waitingOrder()).toEqual([a.orgId, b.orgId, a.orgId, a.orgId]);
  const served: string[] = [];
  for (let i = 0; i < 4; i++) served.push((await runNext()).orgId);
  expect(served).toEqual([a.orgId, b.orgId, a.orgId, a.orgId]);
});

it("a parked delivery that comes back unwoken is behind another organization's, and a woken one runs next", async () => {
  const a = await makeOrganization(deps);
  const b = await makeOrganization(deps);
  const hook = await createWebhook(deps, a.orgId, { url: `${fast.url}/a`, events: ['contact.created'] });
  await createWebhook(deps, b.orgId, { url: `${fast.url}/b`, events: ['contact.created'] });
  // A's endpoint is full (its one slot held by a delivery in flight elsewhere): A's first two deliveries park
  expect(await slots.acquire(hook.id, 'elsewhere')).toBe(true);
  await events(a.orgId, 4);
  const parked = [await runNext(), await runNext()];
  expect(parked.map((p) => p.waits)).toEqual([true, true]);
  await events(b.orgId, 1);
  // the second parked one's lease runs out before a slot frees: it comes back behind B's (and A's backlog)
  const [first, second] = parked.map((p) => p.jobId) as [string, string];
  await (await deps.queues.webhooks.getJob(second))!.promote();
  const name = (jobId: string, orgId: string) => (jobId === first ? 'first' : jobId === second ? 'second' : orgId === a.orgId ? 'a' : 'b');
  expect(await waitingOrder(name)).toEqual(['a', 'b', 'a', 'second']);
  // the slot frees and is handed to the first parked one, which holds it now: it goes before every turn (BullMQ's
  // plain wait list), not in its organization's (behind A's own backlog, the slot idle meanwhile)
  await slots.release(hook.id, 'elsewhere');
  await (await deps.queues.webhooks.getJob(first))!.promote();
  expect((await deps.queues.webhooks.getWaiting()).map((j) => j.id)).toEqual([first]);
  expect(await waitingOrder(name)).toEqual(['a', 'b', 'a', 'second']);
  expect((await runNext()).jobId).toBe(first);
});
