import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderPace } from '@tidings/providers';
import type { Lane, Redis } from '@tidings/queue';
import { untraced } from '@tidings/telemetry';
import type { DeferredReason } from './deferral.ts';

/** The window an account's use is counted in (pace-status.ts reads it), in microseconds of Redis's clock: 10 s. */
export const USE_WINDOW_US = 10_000_000;

// GCRA over one hash per provider account, in microseconds of Redis's own clock (every worker shares it). `tat` is
// the theoretical arrival time of the next request; a caller may go when tat - tolerance <= now. The transactional
// lane's tolerance is one slot more than bulk's (laneTolerance): while single sends keep tat ahead, bulk waits; when
// none come, bulk takes every slot. `reserve`: a refused caller books the next slot anyway and is told when it is (no herd of
// retries, and the waiting keep their order). A provider's own lower limit (`interval` until `intervalUntil`) wins.
// One call takes the slots of several callers in turn (ARGV[2..]: each caller's slots, reserve and lane offset), so
// that a process's concurrent sends share a round trip; each gets 4 numbers back: kind, wait ms, booked ms, rolled.
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'interval', 'intervalUntil', 'tat', 'w', 'c', 'd')
local corrected = tonumber(f[1] or '0')
local isCorrected = tonumber(f[2] or '0') > now and corrected > interval
if isCorrected then interval = corrected end
local tat = tonumber(f[3] or '0')
if tat < now then tat = now end
-- its use (pace-status.ts): calls booked (c) and of them deferred (d) in this USE_WINDOW, and in the one before (pc, pd)
local win = math.floor(now / ${USE_WINDOW_US})
local w = tonumber(f[4] or '0')
local c, d = tonumber(f[5] or '0'), tonumber(f[6] or '0')
local rolled = 0
if w ~= win then rolled = 1 end
local taken = 0
local answers = {}
local function answer(kind, waitMs, atMs, isFirstOfWindow)
  table.insert(answers, kind); table.insert(answers, waitMs); table.insert(answers, atMs); table.insert(answers, isFirstOfWindow)
end
for i = 2, #ARGV, 3 do
  local slots = tonumber(ARGV[i])
  -- the provider's own depth, less the lane's offset (see laneTolerance)
  if isCorrected then slots = math.min(slots, math.max(0, math.floor(1000000 / corrected) - tonumber(ARGV[i + 2]))) end
  local wait = tat - slots * interval - now
  if wait > 0 and ARGV[i + 1] ~= '1' then
    answer(0, math.ceil(wait / 1000), 0, 0)
  else
    if wait < 0 then wait = 0 end
    if taken == 0 and rolled == 1 then
      -- the first take of a window: this window starts empty, the last one's counts move to pc and pd
      local pc, pd = 0, 0
      if w == win - 1 then pc, pd = c, d end
      redis.call('HSET', KEYS[1], 'w', win, 'pc', pc, 'pd', pd)
      c, d = 0, 0
    end
    c = c + 1
    if wait > 0 then d = d + 1 end
    if wait == 0 then answer(1, 0, 0, taken == 0 and rolled or 0)
    else answer(2, math.ceil(wait / 1000), math.ceil((now + wait) / 1000), taken == 0 and rolled or 0) end
    taken = taken + 1
    tat = tat + interval
  end
end
if taken > 0 then
  redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', tat), 'c', c, 'd', d)
  redis.call('PEXPIRE', KEYS[1], math.ceil((tat - now) / 1000) + 600000)
end
return answers
`;

// What the provider said: `retry-after` pushes tat past the wait (plus the lanes' tolerance, ARGV[2]);
// its own limit, when lower than ours, slows the account down for a minute after each answer that says so.
const CORRECT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local hold = tonumber(ARGV[1]) * 1000
local interval = tonumber(ARGV[2])
if hold > 0 then
  local tat = tonumber(redis.call('HGET', KEYS[1], 'tat') or '0')
  local held = now + hold + interval
  if tat < held then redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', held)) end
end
local corrected = tonumber(ARGV[3])
if corrected > 0 then
  redis.call('HSET', KEYS[1], 'interval', string.format('%.0f', corrected), 'intervalUntil', string.format('%.0f', now + 60000000))
end
redis.call('PEXPIRE', KEYS[1], math.ceil(hold / 1000) + 600000)
return 1
`;

// The last call's time: a limit without depth (one a second) is kept by the calls themselves, whenever their jobs ran.
const SPACE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local wait = last + tonumber(ARGV[1]) - now
if wait > 0 then return math.ceil(wait / 1000) end
redis.call('HSET', KEYS[1], 'last', string.format('%.0f', now))
return 0
`;

/**
 * One provider account's limiter: `name` (e.g. `resend`, `telnyx:+15551234567`), its rate, and what a message
 * waiting for it shows (`provider_rate_limit`, or `sender_rate_limit` for an SMS number's own pace).
 */
export type PaceAccount = { name: string; provider: string; ratePerSecond: number; reason: DeferredReason };

/** A slot now; a booked slot later (`reserve`); or, without reserving, how long until one may be free. */
export type PaceSlot = { kind: 'now' } | { kind: 'reserved'; at: Date } | { kind: 'wait'; waitMs: number };

type PaceCommands = {
  paceTake(key: string, intervalUs: number, ...takers: (number | string)[]): Promise<number[]>;
  paceCorrect(key: string, holdMs: number, intervalUs: number, correctedIntervalUs: number): Promise<number>;
  paceSpace(key: string, intervalUs: number): Promise<number>;
};

/** Puts the limiter's scripts on the rate-limit connection (see createRateLimits). */
export function definePaceCommands(connection: Redis): void {
  connection.defineCommand('paceTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  connection.defineCommand('paceCorrect', { numberOfKeys: 1, lua: CORRECT_SCRIPT });
  connection.defineCommand('paceSpace', { numberOfKeys: 1, lua: SPACE_SCRIPT });
}

/** The Redis key of an account's limiter, hash-tagged so that it works on a Redis Cluster. */
export function paceKey(prefix: string, account: Pick<PaceAccount, 'name'>): string {
  return `${prefix}:pace:{${account.name}}`;
}

/**
 * Calls are spaced for 95% of the rate: the provider counts arrivals on its own clock, after network and scheduling
 * jitter, and a limit of one a second has no depth to absorb an early one.
 */
const PACE_MARGIN = 0.95;
const intervalUs = (ratePerSecond: number) => Math.max(1, Math.round(1_000_000 / (ratePerSecond * PACE_MARGIN)));

/**
 * Slots a lane may go ahead of the steady rate, within the depth of a limit of N a second (N at once): bulk one less
 * than the transactional lane, so a single send always finds a slot bulk may not take, and bulk can catch up on slots
 * its gate woke too late for. Below 2 a second there is no depth: neither goes ahead.
 */
const laneTolerance = (ratePerSecond: number, lane: Lane) => {
  const depth = Math.floor(ratePerSecond);
  return Math.max(0, lane === 'transactional' ? depth - 1 : depth - 2);
};

/** The rate-limit connection (createRateLimits puts the scripts on it) and the Redis prefix. */
export type PaceDeps = { rateLimits: { connection: Redis }; config: { redisPrefix: string } };

/** One caller's take: its lane, and whether a caller that must wait books a later slot (see TAKE_SCRIPT). */
export type SlotTake = { lane: Lane; reserve: boolean };

/**
 * Takes a slot of `account` for each of `takes`, in order, in one call to Redis, shared by every process on it. The
 * transactional lane goes first (see TAKE_SCRIPT); with `reserve`, a caller that must wait is given its own later slot.
 * @example const [slot] = await takeProviderSlots(deps, account, [{ lane: 'transactional', reserve: true }]);
 */
export async function takeProviderSlots(deps: PaceDeps, account: PaceAccount, takes: SlotTake[]): Promise<PaceSlot[]> {
  const client = deps.rateLimits.connection as unknown as PaceCommands;
  const takers = takes.flatMap(({ lane, reserve }) => [laneTolerance(account.ratePerSecond, lane), reserve ? '1' : '0', lane === 'transactional' ? 1 : 2]);
  const answers = await untraced(() => client.paceTake(paceKey(deps.config.redisPrefix, account), intervalUs(account.ratePerSecond), ...takers));
  return takes.map((_, i): PaceSlot => {
    const [kind, waitMs, atMs, rolled] = answers.slice(i * 4, i * 4 + 4) as [number, number, number, number];
    // the first take of a use window (every 10 s at most, whichever process) notes the account for status and /metrics
    if (rolled === 1) noteAccountUse(deps, account);
    if (kind === 1) return { kind: 'now' };
    // the booked time on Redis's clock, the one every process shares
    if (kind === 2) return { kind: 'reserved', at: new Date(atMs) };
    return { kind: 'wait', waitMs: Math.max(1, waitMs) };
  });
}

/**
 * Takes one slot of `account` (see takeProviderSlots).
 * @example const slot = await takeProviderSlot(deps, account, 'transactional', { reserve: true }); if (slot.kind === 'reserved') { wait until slot.at }
 */
export async function takeProviderSlot(deps: PaceDeps, account: PaceAccount, lane: Lane, options: { reserve: boolean }): Promise<PaceSlot> {
  const [slot] = await takeProviderSlots(deps, account, [{ lane, reserve: options.reserve }]);
  return slot!;
}

/**
 * How long the provider said no call may go: its `retry-after` on a 429 (one second without one); on an accepted
 * call, `ratelimit-reset` when `ratelimit-remaining` is 0 (the window is spent: the next call would be refused,
 * whoever else spends the same account, another app or another install); else nothing.
 */
function holdOf(pace: ProviderPace | undefined, options: { isRateLimited: boolean; retryAfterMs?: number }): number {
  if (options.isRateLimited) return options.retryAfterMs ?? (pace?.retryAfterSeconds !== undefined ? pace.retryAfterSeconds * 1000 : 1000);
  if (pace?.remaining === 0 && pace.resetSeconds !== undefined) return pace.resetSeconds * 1000;
  return 0;
}

/**
 * Corrects `account`'s limiter from what its provider said: a hold (holdOf: `retry-after`, or a spent window's
 * `ratelimit-reset`) keeps every process back; a `ratelimit-limit` below our rate slows us to it. Writes nothing
 * when there is nothing to correct (the common answer).
 * @example await correctProviderPace(deps, account, { retryAfterSeconds: 1 }, { isRateLimited: true });
 */
export async function correctProviderPace(
  deps: PaceDeps,
  account: PaceAccount,
  pace: ProviderPace | undefined,
  options: { isRateLimited: boolean; retryAfterMs?: number },
): Promise<void> {
  const holdMs = holdOf(pace, options);
  const providerLimit = pace?.limit && pace.limit < account.ratePerSecond ? pace.limit : undefined;
  if (holdMs <= 0 && !providerLimit) return;
  const client = deps.rateLimits.connection as unknown as PaceCommands;
  await untraced(() =>
    client.paceCorrect(
      paceKey(deps.config.redisPrefix, account),
      Math.ceil(holdMs),
      // past the wait by every slot a lane may go ahead, so that none goes before it
      intervalUs(account.ratePerSecond) * (laneTolerance(account.ratePerSecond, 'transactional') + 1),
      providerLimit ? intervalUs(providerLimit) : 0,
    ),
  );
}

/**
 * Where the provider's limit has no depth (below 2 a second: an SMS number), a call goes at least one interval after
 * the account's last call, whenever its job ran (booked slots drift with the jobs' scheduling); waits here the
 * moment that is missing.
 * @example await spaceCall(deps, account); // then call the provider
 */
export async function spaceCall(deps: PaceDeps, account: PaceAccount): Promise<void> {
  if (laneTolerance(account.ratePerSecond, 'transactional') > 0) return;
  const client = deps.rateLimits.connection as unknown as PaceCommands;
  // bounded: a few intervals at most, however many calls race for the number
  for (let i = 0; i < 20; i++) {
    const waitMs = await untraced(() => client.paceSpace(paceKey(deps.config.redisPrefix, account), intervalUs(account.ratePerSecond)));
    if (waitMs <= 0) return;
    await sleep(waitMs);
  }
}

// What the limiter notes of the accounts it takes, for `tidings status`, the Queues page and /metrics (pace-status.ts).

/** What the registry keeps of an account taken lately (the limiter's own hash holds its use). */
export type SeenAccount = { name: string; provider: string; ratePerSecond: number; reason: DeferredReason };

/** An account not taken this long drops out of what status and /metrics show. */
export const SEEN_FOR_MS = 10 * 60_000;
/** At most this many accounts are kept (sending numbers beyond it: the least lately used go). */
const MAX_SEEN = 1000;

// one hash tag for both keys: they may be written together on a Redis Cluster
const seenKey = (prefix: string) => `${prefix}:pace-accounts:{seen}`;
const infoKey = (prefix: string) => `${prefix}:pace-accounts:{seen}:info`;

type UsageDeps = { rateLimits: { connection: Redis }; config: { redisPrefix: string } };

/**
 * Notes that `account` is in use (the accounts `tidings status`, the Queues page and /metrics show). Called by the
 * limiter on the first take of each use window (every 10 s at most, across every process), never awaited: a failure
 * only costs this note.
 * @example noteAccountUse(deps, account);
 */
export function noteAccountUse(deps: UsageDeps, account: SeenAccount): void {
  const now = Date.now();
  const prefix = deps.config.redisPrefix;
  const { name, provider, ratePerSecond, reason } = account;
  deps.rateLimits.connection
    .multi()
    .zadd(seenKey(prefix), now, name)
    .hset(infoKey(prefix), name, JSON.stringify({ name, provider, ratePerSecond, reason }))
    .zremrangebyrank(seenKey(prefix), 0, -MAX_SEEN - 1)
    .exec()
    .catch(() => {});
}

/**
 * The accounts taken in the last SEEN_FOR_MS, the most lately used first, at most `limit` of them.
 * @example const accounts = await seenAccounts(deps, 20);
 */
export async function seenAccounts(deps: UsageDeps, limit: number): Promise<SeenAccount[]> {
  const redis = deps.rateLimits.connection;
  const prefix = deps.config.redisPrefix;
  const names = await redis.zrevrangebyscore(seenKey(prefix), '+inf', Date.now() - SEEN_FOR_MS, 'LIMIT', 0, limit);
  if (names.length === 0) return [];
  const infos = await redis.hmget(infoKey(prefix), ...names);
  return infos.flatMap((info) => (info ? [JSON.parse(info) as SeenAccount] : []));
}
