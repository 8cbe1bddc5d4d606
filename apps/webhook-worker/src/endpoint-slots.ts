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
 * FAST_DELIVERY_MS or more (so an endpoint that starts hanging is known as slow within that time).
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
   * Frees `jobId`'s slot and hands it to the first parked job that is still waiting, which it wakes; else to a job
   * waiting in this process. `deliveryMs`: how long the delivery took, when there was one.
   */
  release(webhookId: string, jobId: string, deliveryMs?: number): Promise<void>;
  /** How long a slot is held at most (a delivery's timeout and a grace), and a parked job waits. */
  leaseMs: number;
};

// KEYS: held. ARGV: now, leaseMs, cap, member.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// KEYS: held, parked. ARGV: now, leaseMs, cap, parked entry, member. Parks only while the endpoint is still full and
// no release has handed this job a slot since its ACQUIRE: checked and pushed at once, against RELEASE's
// free-and-pop, so no wake-up falls between the two.
const PARK = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[5]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]) * 4)
return 1`;

// KEYS: held, parked. ARGV: now, leaseMs, member. Frees the member's slot and hands it to the first parked job (its
// member is the job id after the '|'), so that a job queued meanwhile cannot take it and park the woken one again.
// A parked job that holds a slot already is skipped: its lease ran out and it runs on its own, and the slot it holds
// must stay its own (counted once, and not freed as if handed). Returns the woken job's entry, or false.
const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[3])
while true do
  local entry = redis.call('LPOP', KEYS[2])
  if not entry then return false end
  local member = string.sub(entry, string.find(entry, '|', 1, true) + 1)
  if not redis.call('ZSCORE', KEYS[1], member) then
    redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), member)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return entry
  end
end`;

/**
 * A woken job runs this much later rather than at once: its own run that parked it may still be ending in this very
 * worker, and BullMQ must not run one job id twice at once (the second run's lock would go unrenewed).
 */
export const WAKE_DELAY_MS = 100;
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
    return [`${base}:held`, `${base}:parked`] as const;
  };
  // per endpoint, in this process: how long its last delivery took, when each delivery in flight began, and the
  // jobs waiting for one of its slots
  const lastDeliveryMs = new Map<string, number>();
  const inFlightSince = new Map<string, Map<string, number>>();
  const waiting = new Map<string, Set<() => void>>();
  const tryAcquire = async (webhookId: string, jobId: string) => {
    const taken = (await redis.eval(ACQUIRE, 1, keys(webhookId)[0], Date.now(), leaseMs, cap, jobId)) === 1;
    if (taken) inFlightSince.set(webhookId, (inFlightSince.get(webhookId) ?? new Map()).set(jobId, Date.now()));
    return taken;
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
    async park(webhookId, queue, jobId) {
      return (await redis.eval(PARK, 2, ...keys(webhookId), Date.now(), leaseMs, cap, `${queue}|${jobId}`, jobId)) === 1;
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
        const entry = (await redis.eval(RELEASE, 2, ...keys(webhookId), Date.now(), leaseMs, member)) as string | null;
        if (!entry) return wakeOne(webhookId); // the slot is free: a job waiting here takes it
        const [queue, parkedId] = entry.split('|') as [WebhookQueue, string];
        const job = await queues[queue]?.getJob(parkedId);
        // changeDelay refuses a job that is not delayed: it runs or is about to (its lease ran out), and takes the
        // slot it was handed when it asks for one; or it has ended, and the slot goes on to the next parked job
        const woken = await job?.changeDelay(WAKE_DELAY_MS).then(
          () => true,
          () => false,
        );
        if (woken) return;
        const state = (await job?.getState()) ?? 'unknown';
        if (!ENDED.has(state)) return;
        logger.debug({ webhookId, jobId: parkedId, state }, 'parked webhook job has ended; waking the next');
        member = parkedId;
      }
    },
  };
}
