import { decryptSecret, type PostResult } from '@tidings/webhooks';
import type { Deps } from '../deps.ts';

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

/**
 * Loads a delivery for its next attempt. A delivery that is no longer pending is done (at-least-once jobs made
 * idempotent); one whose endpoint was disabled is closed as failed without a request; one whose retry is not due
 * yet says when it is.
 * @example const work = await loadDeliveryWork(deps, job.data.deliveryId);
 */
export async function loadDeliveryWork({ db, config, now }: Deps, deliveryId: string): Promise<DeliveryWork> {
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { webhook: true } });
  if (!delivery) return { kind: 'done', reason: 'no such delivery' };
  if (delivery.status !== 'pending') return { kind: 'done', reason: `already ${delivery.status}` };
  const { webhook } = delivery;
  if (!webhook.enabled) {
    await db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending' },
      data: { status: 'failed', completedAt: now(), nextAttemptAt: null },
    });
    return { kind: 'done', reason: 'endpoint disabled' };
  }
  if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > now().getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'notYet', at: delivery.nextAttemptAt };
  }
  const event = await db.event.findUnique({ where: { id: delivery.eventId } });
  if (!event) return { kind: 'done', reason: 'event missing' };
  const secrets = [decryptSecret(webhook.secretCiphertext, config.webhooks.secretKey)];
  if (webhook.previousSecretCiphertext && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now()) {
    secrets.push(decryptSecret(webhook.previousSecretCiphertext, config.webhooks.secretKey));
  }
  return {
    kind: 'deliver',
    deliveryId: delivery.id,
    orgId: delivery.orgId,
    webhookId: webhook.id,
    url: webhook.url,
    messageId: event.id,
    body: JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data }),
    secrets,
    attempts: delivery.attempts,
    failingSince: webhook.failingSince,
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

  const deliveryStatus = outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending' : 'failed';
  const endpointChange =
    outcome.kind === 'succeeded'
      ? db.webhook.updateMany({ where: { id: work.webhookId, failingSince: { not: null } }, data: { failingSince: null } })
      : outcome.kind === 'disabled'
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
