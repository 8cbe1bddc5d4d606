import type { EventType, Webhook, WebhookDelivery } from '@tidings/contracts';
import type { Webhook as WebhookRow, WebhookAttempt as AttemptRow, WebhookDelivery as DeliveryRow } from '@tidings/db';

/** The API's view of an endpoint: never a secret, encrypted or not. */
export function toWebhook(row: WebhookRow, now = new Date()): Webhook {
  const overlapRunning = row.previousSecretCiphertext && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    url: row.url,
    mode: row.mode,
    events: row.events as EventType[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.enabled ? null : ((row.disabledReason as Webhook['disabledReason']) ?? 'manual'),
    disabledAt: row.enabled ? null : (row.disabledAt ?? row.updatedAt).toISOString(),
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt: overlapRunning ? row.previousSecretExpiresAt!.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Loads the latest attempt with each delivery (bounded: one page of deliveries). */
export const withLastAttempt = { attemptsLog: { orderBy: { number: 'desc' as const }, take: 1 } };

/** The API's view of a delivery, with its latest attempt. */
export function toDelivery(row: DeliveryRow & { attemptsLog: AttemptRow[] }): WebhookDelivery {
  const last = row.attemptsLog[0];
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    eventType: row.eventType as EventType,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    lastAttempt: last ? { statusCode: last.statusCode, durationMs: last.durationMs, error: last.error, at: last.createdAt.toISOString() } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
