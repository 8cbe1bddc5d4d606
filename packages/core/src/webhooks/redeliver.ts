import type { EventType, ReplayWebhookBody, WebhookDeliveryDetail } from '@tidings/contracts';
import { redeliveryJobId, webhookQueueOf } from '@tidings/queue';
import type { KeyMode } from '@tidings/providers';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { findOrgEvent } from '../event.store.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { findDeliveryWithAttempts, reopenDelivery, replayDeliveries } from './webhook-delivery.store.ts';
import { toDelivery } from './webhook-mappers.ts';
import { findWebhook } from './webhook.service.ts';
import type { OrgContext } from '../request-context.ts';

/** Redelivery jobs enqueued by the request itself; the outbox relay enqueues the rest of a larger replay. */
const DISPATCH_AT_ONCE = 1_000;

async function enabledWebhook({ db }: Pick<Deps, 'db'>, orgId: string, webhookId: string, mode: KeyMode | undefined) {
  const webhook = await findWebhook(db, orgId, webhookId, mode);
  if (!webhook.enabled) throw new AppError('BAD_REQUEST', 'Webhook is disabled; enable it (webhook.update with enabled: true) to deliver to it again');
  return webhook;
}

/**
 * webhook.getEvent: one delivery with the payload it sends (the `webhook-id` header is `eventId`) and every attempt,
 * oldest first: status code, duration, the first 64 KiB of the answer, or the error. With `mode` (an API key's), one
 * of another mode's endpoint, or about another mode's message or broadcast, is NOT_FOUND.
 * @example const delivery = await getWebhookDelivery({ deps, orgId }, 'whk_...', 'dlv_...');
 */
export async function getWebhookDelivery({ deps: { db }, orgId, mode }: OrgContext<Pick<Deps, 'db'>>, webhookId: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
  const row = foundOr404(await findDeliveryWithAttempts(db, { orgId, webhookId, deliveryId, mode }), 'Webhook delivery');
  const event = await findOrgEvent(db, orgId, row.eventId);
  return {
    ...toDelivery({ ...row, attemptsLog: row.attemptsLog.slice(-1) }),
    payload: event ? { id: event.id, type: event.type as EventType, createdAt: event.createdAt.toISOString(), data: event.data as Record<string, unknown> } : null,
    attemptLog: row.attemptsLog.map((a) => ({
      number: a.number,
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      responseBody: a.responseBody,
      error: a.error,
      at: a.createdAt.toISOString(),
    })),
  };
}

/**
 * webhook.retryEvent: delivers it again now, whatever its status (pending, succeeded or failed): the delivery
 * becomes pending, due now, with a job of its own. The payload and `webhook-id` stay those of the event, the
 * signature is made afresh at sending (a new timestamp), so a receiver dedupes it. 400 when the endpoint is disabled.
 * With `mode` (an API key's), one about another mode's message or broadcast is NOT_FOUND.
 * @example const delivery = await retryWebhookDelivery({ deps, orgId }, 'whk_...', 'dlv_...');
 */
export async function retryWebhookDelivery(ctx: OrgContext, webhookId: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
  const { deps, orgId, mode } = ctx;
  await enabledWebhook(deps, orgId, webhookId, mode);
  const now = deps.now();
  await unitOfWork(deps, async (tx, outbox) => {
    const row = await reopenDelivery(tx, { orgId, webhookId, deliveryId, mode }, now);
    if (!row) throw new AppError('NOT_FOUND', 'Webhook delivery not found');
    await recordAudit(tx, deps.actor, { orgId, action: 'webhook.eventRetried', targetId: deliveryId });
    outbox.add([{ queue: 'webhooks', jobId: redeliveryJobId(row.id, row.attempts), orgId, createdAt: row.createdAt }]);
  });
  return getWebhookDelivery(ctx, webhookId, deliveryId);
}

/**
 * webhook.replay: re-delivers every delivery of this endpoint created in `[since, until)` (only the failed ones with
 * `status: "failed"`), in ONE statement that makes them pending and writes their jobs' outbox rows; the first
 * thousand jobs are enqueued at once, the outbox relay enqueues the rest. They go to the bulk lane
 * (`webhooks-bulk`), worked by slots of their own, so a replay never holds anyone's live webhooks. A range of more
 * than WEBHOOK_REPLAY_MAX deliveries is refused (400) and nothing changes. Answers how many; with `mode` (an API
 * key's), none about another mode's messages or broadcasts.
 * @example const { count } = await replayWebhookDeliveries({ deps, orgId }, 'whk_...', { since: '2026-11-24T00:00:00Z', status: 'failed' });
 */
export async function replayWebhookDeliveries({ deps, orgId, mode }: OrgContext, webhookId: string, input: ReplayWebhookBody): Promise<{ count: number }> {
  await enabledWebhook(deps, orgId, webhookId, mode);
  const since = new Date(input.since).toISOString();
  const until = (input.until ? new Date(input.until) : deps.now()).toISOString();
  if (since >= until) throw new AppError('BAD_REQUEST', 'since: must be before until');
  const now = deps.now().toISOString();
  const statuses = input.status ? [input.status] : ['pending', 'succeeded', 'failed'];
  const max = deps.config.webhooks.replayMax;
  const queue = webhookQueueOf('bulk');
  // in the audit row's transaction: a range refused below leaves no row (and changed nothing)
  const count = await unitOfWork(deps, async (tx, outbox) => {
    const replay = await replayDeliveries(tx, { orgId, webhookId, since, until, statuses, mode, now, max, queue }, DISPATCH_AT_ONCE);
    if ((replay?.matched ?? 0) > max) {
      throw new AppError('BAD_REQUEST', `since: the range holds more than ${max} deliveries, the most one replay re-delivers; narrow since and until and replay it in parts.`);
    }
    await recordAudit(tx, deps.actor, { orgId, action: 'webhook.replayed', targetId: webhookId });
    outbox.add((replay?.jobIds ?? []).map((jobId) => ({ queue, jobId, orgId })));
    return replay?.count ?? 0;
  });
  return { count };
}
