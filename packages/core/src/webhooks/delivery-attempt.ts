import { decryptSecret, type PostResult } from '@tidings/webhooks';
import type { Deps } from '../deps.ts';
import { groupCommit } from '../group-commit.ts';

/** The longest `Retry-After` honoured; an endpoint asking for more is retried after this. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
// A job may run a little before its row's time (clock skew between hosts); within this it is not early.
const EARLY_TOLERANCE_MS = 1_000;

/** What the webhook-worker should do with a delivery job. */
export type DeliveryWork =
  | { kind: 'done'; reason: string }
  | { kind: 'notYet'; at: Date }
  | {
      kind: 'deliver';
      deliveryId: string;
      orgId: string;
      webhookId: string;
      url: string;
      /** The `webhook-id` header: the event id, the same on every retry, so receivers dedupe by it. */
      messageId: string;
      body: string;
      /** Every secret that signs now: the current one, and the previous one during a rotation's overlap. */
      secrets: string[];
      attempts: number;
      failingSince: Date | null;
    };

/** A delivery with its endpoint and event, as one statement reads them for many deliveries. */
type DeliveryRow = {
  id: string;
  orgId: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  webhookId: string;
  url: string;
  enabled: boolean;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  eventId: string | null;
  eventType: string | null;
  eventCreatedAt: Date | null;
  eventData: unknown;
};

const loaders = new WeakMap<Deps['db'], (deliveryId: string) => Promise<DeliveryRow | null>>();

/** Reads deliveries with their endpoint and event: one statement for the deliveries the worker's jobs load at once. */
function loadDelivery(deps: Deps, deliveryId: string): Promise<DeliveryRow | null> {
  let load = loaders.get(deps.db);
  if (!load) {
    load = groupCommit(
      async (ids: string[]) => {
        const rows = await deps.db.$queryRaw<DeliveryRow[]>`
          SELECT d."id", d."orgId", d."status"::text, d."attempts", d."nextAttemptAt", w."id" AS "webhookId", w."url", w."enabled",
                 w."secretCiphertext", w."previousSecretCiphertext", w."previousSecretExpiresAt", w."failingSince",
                 e."id" AS "eventId", e."type" AS "eventType", e."createdAt" AS "eventCreatedAt", e."data" AS "eventData"
          FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId" LEFT JOIN "Event" e ON e."id" = d."eventId"
          WHERE d."id" = ANY(${ids}::text[])`;
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id) ?? null);
      },
      { maxSize: 200, maxInFlight: Math.max(1, Math.floor(deps.config.databasePoolSize / 2)) },
    );
    loaders.set(deps.db, load);
  }
  return load(deliveryId);
}

/**
 * Loads a delivery for its next attempt. A delivery that is no longer pending is done (at-least-once jobs made
 * idempotent); one whose endpoint was disabled is closed as failed without a request; one whose retry is not due
 * yet says when it is.
 * @example const work = await loadDeliveryWork(deps, job.data.deliveryId);
 */
export async function loadDeliveryWork(deps: Deps, deliveryId: string): Promise<DeliveryWork> {
  const { db, config, now } = deps;
  const delivery = await loadDelivery(deps, deliveryId);
  if (!delivery) return { kind: 'done', reason: 'no such delivery' };
  if (delivery.status !== 'pending') return { kind: 'done', reason: `already ${delivery.status}` };
  if (!delivery.enabled) {
    await db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending' },
      data: { status: 'failed', completedAt: now(), nextAttemptAt: null },
    });
    return { kind: 'done', reason: 'endpoint disabled' };
  }
  if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > now().getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'notYet', at: delivery.nextAttemptAt };
  }
  if (!delivery.eventId) return { kind: 'done', reason: 'event missing' };
  const secrets = [decryptSecret(delivery.secretCiphertext, config.webhooks.secretKey)];
  if (delivery.previousSecretCiphertext && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > now()) {
    secrets.push(decryptSecret(delivery.previousSecretCiphertext, config.webhooks.secretKey));
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
  };
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

// Postgres text cannot hold NUL; a response may contain anything.
const storable = (text: string | null) => (text === null ? null : text.replaceAll('\u0000', ''));

/**
 * Records one attempt and its consequences in one transaction: the attempt row (status, duration, response
 * excerpt, error), the delivery's new status and next time, and the endpoint's health (a success clears
 * `failingSince`; a 410 disables it at once; failing for `disableAfterFailingMs` straight disables it).
 * @example const outcome = await recordAttempt(deps, work, await postWebhook(work.url, {...}));
 */
export async function recordAttempt(deps: Deps, work: Extract<DeliveryWork, { kind: 'deliver' }>, result: PostResult): Promise<AttemptOutcome> {
  const { db, config } = deps;
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

  if (outcome.kind === 'succeeded') {
    await recordSuccess(deps, { work, result, at: now });
    return outcome;
  }
  const deliveryStatus = outcome.kind === 'retry' ? 'pending' : 'failed';
  const endpointChange =
    outcome.kind === 'disabled'
      ? db.webhook.updateMany({
          where: { id: work.webhookId, enabled: true },
          data: { enabled: false, disabledReason: outcome.reason, disabledAt: now, failingSince: work.failingSince ?? now },
        })
      : db.webhook.updateMany({ where: { id: work.webhookId, failingSince: null }, data: { failingSince: now } });

  await db.$transaction([
    db.webhookAttempt.create({
      data: {
        deliveryId: work.deliveryId,
        number: attemptNumber,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseBody: storable(result.responseBody),
        error: storable(result.error),
        createdAt: now,
      },
    }),
    db.webhookDelivery.update({
      where: { id: work.deliveryId },
      data: {
        status: deliveryStatus,
        attempts: attemptNumber,
        lastAttemptAt: now,
        nextAttemptAt: outcome.kind === 'retry' ? outcome.at : null,
        completedAt: deliveryStatus === 'pending' ? null : now,
      },
    }),
    endpointChange,
  ]);
  return outcome;
}

type Success = { work: Extract<DeliveryWork, { kind: 'deliver' }>; result: PostResult; at: Date };
const successes = new WeakMap<Deps['db'], (success: Success) => Promise<undefined>>();

/**
 * A succeeded attempt, the common case: the attempt row, the delivery succeeded and its endpoint's failing streak
 * cleared, in one statement shared by the worker's deliveries that succeed at the same time (group commit).
 */
function recordSuccess(deps: Deps, success: Success): Promise<undefined> {
  let record = successes.get(deps.db);
  if (!record) {
    record = groupCommit(
      async (list: Success[]) => {
        const at = (list[0]?.at ?? deps.now()).toISOString();
        await deps.db.$executeRaw`
          WITH input AS (
            SELECT * FROM unnest(${list.map((s) => s.work.deliveryId)}::text[], ${list.map((s) => s.work.attempts + 1)}::int[],
                                 ${list.map((s) => s.result.statusCode)}::int[], ${list.map((s) => Math.round(s.result.durationMs))}::int[],
                                 ${list.map((s) => storable(s.result.responseBody))}::text[], ${list.map((s) => storable(s.result.error))}::text[],
                                 ${list.map((s) => s.work.webhookId)}::text[])
              AS i("deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", "webhookId")),
          attempts AS (
            INSERT INTO "WebhookAttempt" ("deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", "createdAt")
            SELECT "deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", ${at}::timestamp FROM input),
          deliveries AS (
            UPDATE "WebhookDelivery" d SET "status" = 'succeeded', "attempts" = i."number", "lastAttemptAt" = ${at}::timestamp,
              "nextAttemptAt" = NULL, "completedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp
            FROM input i WHERE d."id" = i."deliveryId")
          UPDATE "Webhook" SET "failingSince" = NULL, "updatedAt" = ${at}::timestamp WHERE "id" IN (SELECT "webhookId" FROM input) AND "failingSince" IS NOT NULL`;
        return list.map(() => undefined);
      },
      { maxSize: 200, maxInFlight: Math.max(1, Math.floor(deps.config.databasePoolSize / 2)) },
    );
    successes.set(deps.db, record);
  }
  return record(success);
}
