import { createTestDeps } from '@tidings/testing';
import { endpointSlots } from '../src/endpoint-slots.ts';

// The slots alone, on real Redis and BullMQ jobs: what a parked job that outlived its lease does to the count.
const CAP = 2;
const deps = createTestDeps({ WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP), WEBHOOK_TIMEOUT_MS: '1000' });
const slots = endpointSlots(deps);
const realNow = Date.now;
const clock = jest.spyOn(Date, 'now');

afterAll(async () => {
  clock.mockRestore();
  await deps.close();
});

/** A parked job: delayed for one lease, in the endpoint's list, as the processor leaves it. */
async function parkedJob(webhookId: string, id: string) {
  const job = await deps.queues.webhooks.add('webhooks', { deliveryId: id, webhookId }, { jobId: id, delay: slots.leaseMs });
  expect(await slots.park(webhookId, 'webhooks', id)).toBe(true);
  return job;
}

it('a parked job whose lease ran out and that took a slot of its own keeps it when a release comes to its stale entry', async () => {
  const webhookId = 'wh_stale_entry';
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  const parked = await parkedJob(webhookId, 'p');
  // a and b die holding their slots; a lease later those are free, and p runs on its own (its delay was one lease)
  clock.mockImplementation(() => realNow() + slots.leaseMs + 1);
  await parked.promote();
  expect(await slots.acquire(webhookId, 'p')).toBe(true);
  expect(await slots.acquire(webhookId, 'c')).toBe(true);
  // c's release comes to p's entry: p still delivers, so its slot stays taken, and one slot is free for d, not two
  await slots.release(webhookId, 'c');
  expect(await slots.acquire(webhookId, 'd')).toBe(true);
  expect(await slots.acquire(webhookId, 'e')).toBe(false);
});

it('a slot handed to a parked job that runs already is left for it to take, and one handed to an ended job goes on', async () => {
  clock.mockRestore();
  const webhookId = 'wh_handed';
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  const ended = await parkedJob(webhookId, 'ended');
  const running = await parkedJob(webhookId, 'running');
  await ended.remove();
  await running.promote();
  // a's slot passes the removed job by and goes to the one about to run, which takes it when it asks
  await slots.release(webhookId, 'a');
  expect(await slots.acquire(webhookId, 'x')).toBe(false);
  // had its ask come before the release, it would park now: it does not, and is told to run at once
  expect(await slots.park(webhookId, 'webhooks', 'running')).toBe(false);
  expect(await slots.acquire(webhookId, 'running')).toBe(true);
});
