import type { Job, Queue } from 'bullmq';
import type { QueueName } from './queues.ts';
import type { Redis } from './redis.ts';

/**
 * Queues whose jobs take turns between organizations: every send and webhook lane, and segment recounts. (`broadcasts`
 * and `maintenance` hold few jobs per organization, first come first served.)
 */
export const TURN_QUEUES: ReadonlySet<QueueName> = new Set(['email', 'sms', 'email-bulk', 'sms-bulk', 'webhooks', 'webhooks-bulk', 'segment-counts']);

/** BullMQ's highest priority number (the lowest rank); a turn beyond it is served with the last ones. */
const MAX_PRIORITY = 2 ** 21 - 1;
/** How long an organization's place is remembered after its last job: longer than any backlog takes to drain. */
const TURN_TTL_MS = 60 * 60_000;

/**
 * Start-time fair queueing on BullMQ priorities (lower is served first). The queue's "now" is the priority of its
 * first waiting job (a prioritized job's score is priority * 2^32 + a counter; ties go in order of adding). An
 * organization's next job gets its last priority + 1, but never less than now: so an organization that adds 2,000
 * jobs takes priorities now..now+1999, and one that adds a single job afterwards gets now, served right after the
 * jobs already at now, before the first one's second turn. When nothing waits, a new epoch starts and every organization's place is forgotten (so priorities
 * stay small). One script per queue and call, on keys hash-tagged like the queue's (one slot on a Redis Cluster).
 * KEYS: prioritized, epoch, one place per organization. ARGV: ttl, then each organization's count.
 * Returns each organization's first priority.
 */
const TAKE_TURNS = `
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local now = 1
if head[2] then now = math.floor(tonumber(head[2]) / 4294967296) else redis.call('INCR', KEYS[2]) end
local epoch = redis.call('GET', KEYS[2]) or '0'
local firsts = {}
for i = 3, #KEYS do
  local first = now
  local place = redis.call('GET', KEYS[i])
  if place then
    local sep = string.find(place, ':', 1, true)
    if string.sub(place, 1, sep - 1) == epoch then first = math.max(now, tonumber(string.sub(place, sep + 1)) + 1) end
  end
  firsts[#firsts + 1] = first
  redis.call('SET', KEYS[i], epoch .. ':' .. (first + tonumber(ARGV[i - 1]) - 1), 'PX', ARGV[1])
end
return firsts`;

type TurnsClient = { takeTurns?(...args: (string | number)[]): Promise<number[]> };

/**
 * The BullMQ priority of each job of `orgIds` (in order; the jobs of one organization get consecutive turns), for
 * jobs about to be added to `queue`: organizations interleave round-robin, so one organization's burst waits behind
 * its own earlier jobs, not in front of everyone's next one. One Redis call on `redis` (the queue's connection).
 * @example const priorities = await takeTurns(redis, queues.email, ['org_a', 'org_a', 'org_b']); // [1, 2, 1] on an empty queue
 */
export async function takeTurns(redis: Redis, queue: Queue, orgIds: string[]): Promise<number[]> {
  const counts = new Map<string, number>();
  for (const orgId of orgIds) counts.set(orgId, (counts.get(orgId) ?? 0) + 1);
  const orgs = [...counts.keys()];
  const client = redis as Redis & TurnsClient;
  if (!client.takeTurns) redis.defineCommand('takeTurns', { lua: TAKE_TURNS });
  const keys = [queue.keys.prioritized!, queue.toKey('turns:epoch'), ...orgs.map((orgId) => queue.toKey(`turns:${orgId}`))];
  const firsts = await client.takeTurns!(keys.length, ...keys, TURN_TTL_MS, ...orgs.map((orgId) => counts.get(orgId)!));
  const next = new Map(orgs.map((orgId, i) => [orgId, Number(firsts[i])]));
  return orgIds.map((orgId) => {
    const priority = next.get(orgId)!;
    next.set(orgId, priority + 1);
    return Math.min(priority, MAX_PRIORITY);
  });
}

/**
 * Gives `job` (active, or delayed) a fresh turn of `orgId` in `queue`, for when it goes back to wait (parked, retried,
 * not due yet): it comes back behind what other organizations added meanwhile, rather than with the turn it was first
 * added with, which by then is ahead of everything waiting.
 * @example await takeTurnAgain(redis, queues.webhooks, job, orgId); await job.moveToDelayed(at, token);
 */
export async function takeTurnAgain(redis: Redis, queue: Queue, job: Job, orgId: string): Promise<void> {
  const [priority] = await takeTurns(redis, queue, [orgId]);
  await job.changePriority({ priority });
}
