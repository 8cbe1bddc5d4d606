import { createTestDeps } from '@tidings/testing';
import { endpointSlots, HANDED_SLOT_MS, WAKE_DELAY_MS } from '../src/endpoint-slots.ts';

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

it('a slot handed to a parked job that does not come for it frees itself after HANDED_SLOT_MS, not a whole lease', async () => {
  const webhookId = 'wh_unclaimed';
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  // p is woken and handed a's slot, but never asks for it (its entry was stale: it is past its delivery already)
  await parkedJob(webhookId, 'unclaimed-p');
  await slots.release(webhookId, 'a');
  expect(await slots.acquire(webhookId, 'x')).toBe(false);
  const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + HANDED_SLOT_MS + 1);
  try {
    // before, the slot stayed p's for a whole lease: under a backlog every slot ended up so, and deliveries crawled
    expect(await slots.acquire(webhookId, 'x')).toBe(true);
    // p coming late finds the endpoint full like any other job: still two slots, not three
    expect(await slots.acquire(webhookId, 'unclaimed-p')).toBe(false);
  } finally {
    later.mockRestore();
  }
});

it('the time a holder spends before its POST (loading its delivery) does not make the endpoint slow: a job waits for a slot', async () => {
  const webhookId = 'wh_loading';
  const aSecondOn = () => jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 1000);
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  let ahead = aSecondOn();
  try {
    // a and b have held their slots for a second without POSTing (a slow statement, through a pooler): c waits for one
    const c = slots.acquire(webhookId, 'c');
    await slots.release(webhookId, 'a');
    expect(await c).toBe(true);
  } finally {
    ahead.mockRestore();
  }
  // a POST in flight that long does make it slow: d parks at once rather than wait for c's slot
  slots.began(webhookId, 'b');
  slots.began(webhookId, 'c');
  ahead = aSecondOn();
  try {
    const d = slots.acquire(webhookId, 'd');
    await slots.release(webhookId, 'c');
    expect(await d).toBe(false);
  } finally {
    ahead.mockRestore();
  }
});

it('a release gives its slot to a job waiting in this worker before a parked one, which would first go through the queue', async () => {
  const webhookId = 'wh_waiting_here';
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  await parkedJob(webhookId, 'waiting-p');
  const delayOfParked = async () => (await deps.queues.webhooks.getJob('waiting-p'))!.delay;
  // c runs and waits here for a slot (the endpoint is fast): a's goes to it, and p stays parked for a later release
  const c = slots.acquire(webhookId, 'c');
  // c's first try has been answered (Redis answers in order) and, a turn of the event loop later, c waits
  await deps.redis.ping();
  await new Promise(setImmediate);
  await slots.release(webhookId, 'a');
  expect(await c).toBe(true);
  expect(await delayOfParked()).toBe(slots.leaseMs);
  await slots.release(webhookId, 'b');
  expect(await delayOfParked()).toBe(WAKE_DELAY_MS); // woken: no one waited here
});

it('a release passes over the entries of parked jobs that took a slot since, and wakes the first still waiting', async () => {
  const webhookId = 'wh_stale_entries';
  let now = realNow();
  const ownClock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  const later = () => {
    now += slots.leaseMs + 1;
  };
  expect(await slots.acquire(webhookId, 'a')).toBe(true);
  expect(await slots.acquire(webhookId, 'b')).toBe(true);
  const ended = await Promise.all(['e1', 'e2', 'e3', 'e4', 'e5', 'e6'].map((id) => parkedJob(webhookId, id)));
  const waiting = await parkedJob(webhookId, 'w');
  // the six come back on their own, a lease apart (their holders' leases ran out), take a slot and end
  for (const job of ended) {
    later();
    expect(await slots.acquire(webhookId, job.id!)).toBe(true);
    await job.remove();
  }
  later();
  expect(await slots.acquire(webhookId, 'c')).toBe(true);
  // before, the release tried five of the six stale entries (a look at each job) and left the slot with the fifth
  await slots.release(webhookId, 'c');
  const held = await deps.redis.zrange(`${deps.config.redisPrefix}:endpoint-slots:{${webhookId}}:held`, '0', '-1');
  expect(held).toEqual(['w']);
  // woken: due in a moment rather than a lease later
  expect((await deps.queues.webhooks.getJob('w'))!.delay).toBeLessThan(slots.leaseMs);
  expect(await waiting.getState()).toBe('delayed');
  ownClock.mockRestore();
});
