import { EARLY_TOLERANCE_MS } from '../outbox.ts';
import { decryptSecret, type PostResult } from '@tidings/webhooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs } from '../backoff.ts';
import type { Deps } from '../deps.ts';
import type { Lane } from '@tidings/queue';
import { groupCommitByLane } from '../group-commit.ts';
import {
  clearDeliveryClaim,
  type DeliveryClaim,
  type DeliveryKey,
  type DeliveryRow,
  type DeliverySuccesses,
  failPendingDelivery,
  recordFailedAttempt,
  recordSuccessesAndLoadDeliveries,
} from './webhook-delivery.store.ts';
import type { DeliveryWork, Attempt } from './delivery-work.ts';

export type { DeliveryWork, Attempt } from './delivery-work.ts';

/** The longest `Retry-After` honoured; an endpoint asking for more is retried after this. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
/**
 * A worker that claims a delivery has its POST's timeout plus this long to record the outcome before another worker
 * may try it (its job handed on as stalled on a busy machine, or a worker that died mid-call: that one's delivery
 * waits this much longer for its next try).
 */
const CLAIM_GRACE_MS = 10_000;
/** Recording an outcome is tried this often (waits of about 0.25, 0.5, 1, 2 s: within CLAIM_GRACE_MS) before the job fails. */
const RECORD_TRIES = 5;

/** A job's `createdAt` as the statements take it: an ISO instant (sorts as it compares), or undefined. */
function partitionKeyOf(createdAt: unknown): string | undefined {
  if (typeof createdAt !== 'string') return undefined;
  const time = Date.parse(createdAt);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** What a job asks of the worker's shared statement: to load and claim its delivery, or to record its success. */
export type DeliveryStep = ({ kind: 'load'; key: DeliveryKey } | { kind: 'success'; success: Attempt }) & { lane: Lane };

/** The webhook-worker's shared loads and successes (see createDeliverySteps). */
export type DeliverySteps = (item: DeliveryStep) => Promise<DeliveryRow | null | undefined>;

/** What the shared statement uses. */
type StepDeps = Pick<Deps, 'db' | 'config' | 'now'>;

/**
 * Runs the loads and the successes of the worker's jobs in one statement (group commit): the successes' writes and
 * the claims as CTEs, then the loaded rows. One statement in flight at a time per lane, so that the next gathers both kinds
 * while it runs: a statement costs a write to Postgres and a commit, whatever it carries (Postgres CPU per delivery
 * a quarter lower than with a statement for each kind, five of each in flight). A group failing is run again item
 * by item (groupCommit), so one job's bad success or load fails only that job. Each lane has its own groups
 * (groupCommitByLane): a replay's or a broadcast's deliveries never hold a single event's. Made with the dependencies.
 * @example const steps = createDeliverySteps(deps); const row = await steps({ kind: 'load', key, lane: 'transactional' });
 */
export function createDeliverySteps(deps: StepDeps): DeliverySteps {
  return groupCommitByLane(
    async (items: DeliveryStep[]) => {
      const keys: DeliveryKey[] = [];
      const succeeded: Attempt[] = [];
      for (const i of items) {
        if (i.kind === 'load') keys.push(i.key);
        else succeeded.push(i.success);
      }
      const successes = succeeded.length > 0 ? successesOf(deps, succeeded) : undefined;
      const claim = keys.length > 0 ? claimOf(deps, keys) : undefined;
      const rows = await recordSuccessesAndLoadDeliveries(deps.db, successes, claim);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return items.map((i) => (i.kind === 'load' ? (byId.get(i.key.id) ?? null) : undefined));
    },
    { maxSize: 200, maxInFlight: 1 },
  );
}

/**
 * The claim of the loaded deliveries: those due by now (within EARLY_TOLERANCE_MS), until past this attempt's end
 * (the POST's timeout and CLAIM_GRACE_MS).
 */
function claimOf(deps: StepDeps, keys: DeliveryKey[]): DeliveryClaim {
  const now = deps.now().getTime();
  const dueBy = new Date(now + EARLY_TOLERANCE_MS).toISOString();
  const claimedUntil = new Date(now + deps.config.webhooks.timeoutMs + CLAIM_GRACE_MS).toISOString();
  return { keys, dueBy, claimedUntil };
}

/** Reads a delivery with its endpoint and event, and claims it when it is pending, due and unclaimed. */
async function loadDelivery(deps: Deps, key: DeliveryKey, lane: Lane): Promise<DeliveryRow | null> {
  return (await deps.batchers.deliverySteps({ kind: 'load', key, lane })) ?? null;
}

/** Endpoint secrets already decrypted, by ciphertext (a rotation stores a new one), with the key that decrypted them. */
const decrypted = new Map<string, { key: string; secret: string }>();
const DECRYPTED_MAX = 1_000;

/** An endpoint's secret, decrypted once rather than at every delivery (AES-GCM set-up was 4 % of the worker's CPU). */
function secretOf(config: Deps['config'], ciphertext: string): string {
  const key = config.webhooks.secretKey;
  const known = decrypted.get(ciphertext);
  if (known?.key === key) return known.secret;
  const secret = decryptSecret(ciphertext, key);
  // a worker serving more endpoints than this starts over rather than grow
  if (decrypted.size >= DECRYPTED_MAX) decrypted.clear();
  decrypted.set(ciphertext, { key, secret });
  return secret;
}

/**
 * Loads and claims a delivery for its next attempt. A delivery that is no longer pending is done (at-least-once jobs
 * made idempotent); one whose endpoint was disabled is closed as failed without a request; one whose retry is not due
 * yet, or that another worker has claimed, says when to look again. `createdAt`, when the job carries it, is the
 * delivery's partition key: the row is then read from its month's partition only; a job without it (enqueued by an
 * earlier version, or by the outbox relay) finds the row in any. `lane`: the lane of the job's queue.
 * @example const work = await loadDeliveryWork(deps, job.data.deliveryId, { createdAt: job.data.createdAt, lane: 'transactional' });
 */
export async function loadDeliveryWork(deps: Deps, deliveryId: string, { createdAt, lane }: { createdAt?: unknown; lane: Lane }): Promise<DeliveryWork> {
  const { db, config, now } = deps;
  const partitionKey = partitionKeyOf(createdAt);
  // a job whose createdAt does not match its row (it never should) looks in every partition before it gives up
  const delivery =
    (await loadDelivery(deps, { id: deliveryId, createdAt: partitionKey }, lane)) ??
    (partitionKey === undefined ? null : await loadDelivery(deps, { id: deliveryId, createdAt: undefined }, lane));
  if (!delivery) return { kind: 'done', reason: 'no such delivery' };
  if (delivery.status !== 'pending') return { kind: 'done', reason: `already ${delivery.status}` };
  if (!delivery.enabled) {
    await failPendingDelivery(db, { id: delivery.id, createdAt: delivery.createdAt }, now());
    return { kind: 'done', reason: 'endpoint disabled' };
  }
  if (!delivery.isClaimed) {
    // claimed by another worker in the same instant: its claim shows at the next look
    const next = Math.max(delivery.nextAttemptAt?.getTime() ?? 0, delivery.claimedUntil?.getTime() ?? 0);
    const at = next > now().getTime() ? new Date(next) : new Date(now().getTime() + EARLY_TOLERANCE_MS);
    return { kind: 'notYet', at };
  }
  if (!delivery.eventId) return { kind: 'done', reason: 'event missing' };
  const secrets = [secretOf(config, delivery.secretCiphertext)];
  if (delivery.previousSecretCiphertext && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > now()) {
    secrets.push(secretOf(config, delivery.previousSecretCiphertext));
  }
  return {
    kind: 'deliver',
    deliveryId: delivery.id,
    orgId: delivery.orgId,
    webhookId: delivery.webhookId,
    url: delivery.url,
    messageId: delivery.eventId,
    body: JSON.stringify({ id: delivery.eventId, type: delivery.eventType, createdAt: delivery.eventCreatedAt!.toISOString(), data: delivery.eventData }),
    secrets,
    attempts: delivery.attempts,
    failingSince: delivery.failingSince,
    createdAt: delivery.createdAt,
    lane,
  };
}

/**
 * Gives back the claim `loadDeliveryWork` took, without an attempt (its endpoint was at its concurrency cap): the
 * delivery's job, run again later, claims it anew. Only while still pending with the same attempts.
 * @example await releaseDeliveryClaim(deps, work);
 */
export async function releaseDeliveryClaim({ db }: Pick<Deps, 'db'>, work: Extract<DeliveryWork, { kind: 'deliver' }>): Promise<void> {
  await clearDeliveryClaim(db, { id: work.deliveryId, createdAt: work.createdAt, attempts: work.attempts });
}

/**
 * The wait before the next try after failed attempt number `attemptNumber` (1-based): the schedule's step, or a
 * longer `Retry-After` (capped at 24 h); null when the schedule is used up.
 * @example retryDelayMs([5000, 300000], 1, null) // 5000
 */
export function retryDelayMs(scheduleMs: number[], attemptNumber: number, retryAfterMs: number | null): number | null {
  const step = scheduleMs[attemptNumber - 1];
  if (step === undefined) return null;
  return retryAfterMs !== null && retryAfterMs > step ? Math.max(step, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)) : step;
}

export type AttemptOutcome = { kind: 'succeeded' } | { kind: 'retry'; at: Date } | { kind: 'failed' } | { kind: 'disabled'; reason: 'gone' | 'failing' };

/**
 * Records one attempt and its consequences in one statement: the attempt row (status, duration, response excerpt,
 * error), the delivery's new status and next time, and the endpoint's health (a success clears `failingSince`; a 410
 * disables it at once; failing for `disableAfterFailingMs` straight disables it). A failed recording is tried again
 * (Postgres busy or briefly away) before the job gives up, since a job that gives up after a POST that succeeded
 * makes that POST again; each statement writes only while the attempt is not recorded yet, so a repeat is harmless.
 * @example const outcome = await recordAttempt(deps, work, await postWebhook(work.url, {...}));
 */
export async function recordAttempt(deps: Deps, work: Extract<DeliveryWork, { kind: 'deliver' }>, result: PostResult): Promise<AttemptOutcome> {
  const { config } = deps;
  const now = deps.now();
  const attemptNumber = work.attempts + 1;

  let outcome: AttemptOutcome;
  if (result.ok) outcome = { kind: 'succeeded' };
  else if (result.statusCode === 410) outcome = { kind: 'disabled', reason: 'gone' };
  else if (work.failingSince && now.getTime() - work.failingSince.getTime() >= config.webhooks.disableAfterFailingMs) {
    outcome = { kind: 'disabled', reason: 'failing' };
  } else {
    const delay = retryDelayMs(config.webhooks.retryScheduleMs, attemptNumber, result.retryAfterMs);
    outcome = delay === null ? { kind: 'failed' } : { kind: 'retry', at: new Date(now.getTime() + delay) };
  }

  const attempt = { work, result, at: now };
  for (let tries = 1; ; tries += 1) {
    try {
      await (outcome.kind === 'succeeded' ? recordSuccess(deps, attempt) : recordFailure(deps, attempt, outcome));
      return outcome;
    } catch (error) {
      if (tries >= RECORD_TRIES) throw error;
      deps.logger.warn({ deliveryId: work.deliveryId, err: error, tries }, 'recording a webhook attempt failed; trying again');
      await sleep(backoffDelayMs(tries, { baseMs: 250, maxMs: 4_000 }));
    }
  }
}

/** A failed attempt: the attempt row, the delivery retried later or failed, and the endpoint's failing streak or its disabling. */
async function recordFailure({ db }: Deps, attempt: Attempt, outcome: Exclude<AttemptOutcome, { kind: 'succeeded' }>): Promise<void> {
  await recordFailedAttempt(db, attempt, {
    status: outcome.kind === 'retry' ? 'pending' : 'failed',
    nextAttemptAt: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
    completedAt: outcome.kind === 'retry' ? null : attempt.at.toISOString(),
    disabledReason: outcome.kind === 'disabled' ? outcome.reason : null,
  });
}

/**
 * A succeeded attempt, the common case: the attempt row, the delivery succeeded and its endpoint's failing streak
 * cleared, in the statement shared by the worker's jobs (see `createDeliverySteps`).
 */
async function recordSuccess(deps: Deps, success: Attempt): Promise<void> {
  await deps.batchers.deliverySteps({ kind: 'success', success, lane: success.work.lane });
}

/** The successes of a group, at the first one's time: their endpoints' `updatedAt`. */
function successesOf(deps: StepDeps, list: Attempt[]): DeliverySuccesses {
  return { attempts: list, at: (list[0]?.at ?? deps.now()).toISOString() };
}
