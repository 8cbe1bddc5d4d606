import type { Deps } from '@tidings/core';
import type { WebhookQueue } from '@tidings/queue';

/**
 * Per-endpoint concurrency over every webhook-worker (BullMQ's groups are a paid feature): a Redis semaphore per
 * endpoint whose holders are leases (a sorted set scored by expiry, so a worker that dies frees its slot when the
 * lease runs out), and a list of the jobs parked while the endpoint was at its cap. A delivery that finds its
 * endpoint full parks (its job delayed for one lease) and the delivery that frees a slot wakes the first parked
 * job, so an endpoint that hangs holds only its own slots, and its backlog waits without being worked again and again.
 * Keys share the endpoint id as hash tag, so the scripts work on a Redis Cluster.
 *
 * Parking costs Redis round trips and a wake-up delay per job, which for an endpoint that answers in milliseconds
 * would make the cap a throughput limit (20 deliveries a second to one fast endpoint, measured) rather than a bound
 * on what a slow one holds. So a job whose endpoint is fast waits here, briefly, for a slot to free (`acquire`); it
 * parks at once when the endpoint is slow: its last delivery from this process, or one still in flight here, took
 * FAST_DELIVERY_MS or more (so an endpoint that starts hanging is known as slow within that time). A delivery is in
 * flight from its POST (`began`), not from its slot: the time a holder spends loading its delivery is ours, not the
 * endpoint's (through a pooler, on a busy machine, it passed FAST_DELIVERY_MS, and every job parked). A release
 * hands its slot to a parked job only when no job waits for it here.
 */
export type EndpointSlots = {
  /**
   * Takes a slot of `webhookId` for `jobId`: true when taken; when false, the caller delays the job and parks it.
   * For an endpoint that is not slow, waits up to FAST_WAIT_MS for a slot to free (woken by a release in this
   * process, or looking again every WAIT_POLL_MS).
   */
  acquire(webhookId: string, jobId: string): Promise<boolean>;
  /**
   * Puts a job the caller has just delayed in the endpoint's parked list, to be woken by the next release; false when
   * a slot freed meanwhile, or a release handed it one (nothing would wake it then): the caller wakes it itself.
   */
  park(webhookId: string, queue: WebhookQueue, jobId: string): Promise<boolean>;
  /**
   * Frees `jobId`'s slot for a job waiting in this process; when none waits, hands it to the first parked job that
   * is still waiting, which it wakes. `deliveryMs`: how long the delivery took, when there was one.
   */
  release(webhookId: string, jobId: string, deliveryMs?: number): Promise<void>;
  /** `jobId`'s POST to the endpoint starts now: until its release, the time it takes counts toward the endpoint's. */
  began(webhookId: string, jobId: string): void;
  /** How long a slot is held at most (a delivery's timeout and a grace), and a parked job waits. */
  leaseMs: number;
};

// KEYS: held, unserved. ARGV: now, leaseMs, cap, member. A job that takes a slot is no longer waiting as parked.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[4])
  return 1
end
return 0`;

// KEYS: held, parked, unserved. ARGV: now, leaseMs, cap, parked entry, member. Parks only while the endpoint is still
// full and no release has handed this job a slot since its ACQUIRE: checked and pushed at once, against RELEASE's
// free-and-pop, so no wake-up falls between the two. `unserved` marks the job as waiting for a slot since it parked.
const PARK = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[5]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[3], ARGV[5], 1)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]) * 4)
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[2]) * 4)
return 1`;

// KEYS: held, parked, unserved. ARGV: now, leaseMs, member, handedMs, handOff. Frees the member's slot and, with
// handOff '1', hands it to the first parked job still waiting (its member is the job id after the '|'), so that a job
// queued meanwhile cannot take it and park the woken one again; for handedMs only, until the woken job's ACQUIRE makes
// it a lease. Entries of jobs that took a slot since they parked are dropped here, without a look at the job: a job
// parks again each time its lease runs out unwoken, and its older entries, like those of jobs that have ended, would
// otherwise each cost a release a try (and, past its tries, the slot until its hand-off ends). A parked job that holds
// a slot already is skipped: its lease ran out and it runs on its own, and the slot it holds must stay its own
// (counted once, and not freed as if handed). Returns the woken job's entry, or false.
const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[3])
if ARGV[5] ~= '1' then return false end
for i = 1, 1000 do
  local entry = redis.call('LPOP', KEYS[2])
  if not entry then return false end
  local member = string.sub(entry, string.find(entry, '|', 1, true) + 1)
  if redis.call('HDEL', KEYS[3], member) == 1 and not redis.call('ZSCORE', KEYS[1], member) then
    redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[4]), member)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return entry
  end
end
return false`;

/**
 * A woken job runs this much later rather than at once: its own run that parked it may still be ending in this very
 * worker, and BullMQ must not run one job id twice at once (the second run's lock would go unrenewed).
 */
export const WAKE_DELAY_MS = 100;
/**
 * A slot handed to a parked job is kept for it this long: a woken job asks for it within a fraction of that (0.1 to
 * 0.7 s with the machine's load at 17). One that does not come frees it soon rather than after a whole lease: its
 * entry was stale (the job, parked twice, is past its delivery already) or it waits in a long queue. Before, such
 * slots stayed idle for a lease each, and under a backlog of one endpoint deliveries fell from 10 a second to 1.
 */
export const HANDED_SLOT_MS = 2_000;
/** A parked job in one of these states will not run again: a slot handed to it goes on to the next. */
const ENDED = new Set(['completed', 'failed', 'unknown']);
/** Parked jobs tried per release: a parked entry whose job has ended meanwhile is skipped. */
const WAKE_TRIES = 5;
/** A slot's lease is the POST's timeout plus this: the claim before the POST, and a slow event loop's slack. */
const RECORD_GRACE_MS = 10_000;
/** An endpoint whose deliveries take less is fast: its jobs wait for a slot rather than park. */
const FAST_DELIVERY_MS = 250;
/** How long such a job waits, holding its worker slot, before it parks after all. */
const FAST_WAIT_MS = 250;
/** How often a waiting job looks again for a slot another process freed. */
const WAIT_POLL_MS = 10;
/** Endpoints whose last delivery time this process remembers (the oldest forgotten first). */
const REMEMBERED_ENDPOINTS = 10_000;

/**
 * The endpoint slots of `deps.config.webhooks.endpointConcurrency` per endpoint, on `deps.redis`.
 * @example const slots = endpointSlots(deps); if (!(await slots.acquire(webhookId, job.id))) { delay the job; await slots.park(webhookId, queue, job.id); }
 */
export function endpointSlots(deps: Pick<Deps, 'redis' | 'queues' | 'config' | 'logger'>): EndpointSlots {
  const { redis, queues, config, logger } = deps;
  const leaseMs = config.webhooks.timeoutMs + RECORD_GRACE_MS;
  const cap = config.webhooks.endpointConcurrency;
  const keys = (webhookId: string) => {
    const base = `${config.redisPrefix}:endpoint-slots:{${webhookId}}`;
    return [`${base}:held`, `${base}:parked`, `${base}:unserved`] as const;
  };
  // per endpoint, in this process: how long its last delivery took, when each delivery in flight began, and the
  // jobs waiting for one of its slots
  const lastDeliveryMs = new Map<string, number>();
  const inFlightSince = new Map<string, Map<string, number>>();
  const waiting = new Map<string, Set<() => void>>();
  const tryAcquire = async (webhookId: string, jobId: string) => {
    const [held, , unserved] = keys(webhookId);
    return (await redis.eval(ACQUIRE, 2, held, unserved, Date.now(), leaseMs, cap, jobId)) === 1;
  };
  const isSlow = (webhookId: string) => {
    if ((lastDeliveryMs.get(webhookId) ?? 0) >= FAST_DELIVERY_MS) return true;
    const now = Date.now();
    const inFlight = inFlightSince.get(webhookId) ?? new Map<string, number>();
    for (const [jobId, since] of inFlight) if (since < now - leaseMs) inFlight.delete(jobId); // never released: its lease ended
    return [...inFlight.values()].some((since) => since <= now - FAST_DELIVERY_MS);
  };
  const wakeOne = (webhookId: string) => {
    const wake = waiting.get(webhookId)?.values().next().value;
    wake?.();
  };
  return {
    leaseMs,
    async acquire(webhookId, jobId) {
      if (await tryAcquire(webhookId, jobId)) return true;
      const deadline = Date.now() + FAST_WAIT_MS;
      while (Date.now() < deadline && !isSlow(webhookId)) {
        await new Promise<void>((resolve) => {
          const waiters = waiting.get(webhookId) ?? new Set();
          waiting.set(webhookId, waiters);
          const timer = setTimeout(wake, WAIT_POLL_MS);
          function wake() {
            clearTimeout(timer);
            waiters.delete(wake);
            if (waiters.size === 0 && waiting.get(webhookId) === waiters) waiting.delete(webhookId);
            resolve();
          }
          waiters.add(wake);
        });
        if (await tryAcquire(webhookId, jobId)) return true;
      }
      return false;
    },
    began(webhookId, jobId) {
      inFlightSince.set(webhookId, (inFlightSince.get(webhookId) ?? new Map()).set(jobId, Date.now()));
    },
    async park(webhookId, queue, jobId) {
      return (await redis.eval(PARK, 3, ...keys(webhookId), Date.now(), leaseMs, cap, `${queue}|${jobId}`, jobId)) === 1;
    },
    async release(webhookId, jobId, deliveryMs) {
      const inFlight = inFlightSince.get(webhookId);
      inFlight?.delete(jobId);
      if (inFlight?.size === 0) inFlightSince.delete(webhookId);
      if (deliveryMs !== undefined) {
        lastDeliveryMs.delete(webhookId); // re-inserted last: the Map's order is the order of use
        lastDeliveryMs.set(webhookId, deliveryMs);
        if (lastDeliveryMs.size > REMEMBERED_ENDPOINTS) lastDeliveryMs.delete(lastDeliveryMs.keys().next().value!);
      }
      let member = jobId;
      for (let tries = 0; tries < WAKE_TRIES; tries++) {
        // a job waiting here for a slot runs already: it takes the slot at once, where a woken parked job would first
        // go through the queue (behind a backlog, for longer than its hand-off, while the slot sat idle)
        const handOff = (waiting.get(webhookId)?.size ?? 0) === 0 ? '1' : '0';
        const entry = (await redis.eval(RELEASE, 3, ...keys(webhookId), Date.now(), leaseMs, member, HANDED_SLOT_MS, handOff)) as string | null;
        if (!entry) return wakeOne(webhookId); // the slot is free: a job waiting here takes it
        const [queue, parkedId] = entry.split('|') as [WebhookQueue, string];
        const job = await queues[queue]?.getJob(parkedId);
        // changeDelay refuses a job that is not delayed: it runs or is about to (its lease ran out), and takes the
        // slot it was handed when it asks for one; or it has ended, and the slot goes on to the next parked job
        const woken = await job?.changeDelay(WAKE_DELAY_MS).then(
          () => true,
          () => false,
        );
        // it holds the endpoint's slot now: it runs before the lane's turns (priority 0, BullMQ's plain wait list)
        // rather than in its organization's, which would leave the slot idle behind that organization's own backlog;
        // at most an endpoint's cap of jobs are woken so at once. Its next wait takes a turn again.
        if (woken) return void (await job!.changePriority({ priority: 0 }).catch((error) => logger.warn({ jobId: parkedId, err: error }, 'a woken webhook job kept its turn')));
        const state = (await job?.getState()) ?? 'unknown';
        if (!ENDED.has(state)) return;
        logger.debug({ webhookId, jobId: parkedId, state }, 'parked webhook job has ended; waking the next');
        member = parkedId;
      }
      // out of tries: the slot handed to the last ended job is freed rather than left to its lease
      await redis.zrem(keys(webhookId)[0], member);
      wakeOne(webhookId);
    },
  };
}
