import { webhookQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { addJobs } from '../outbox.ts';
import { selectOverdueDeliveries, type OverdueDelivery } from './webhook-delivery.store.ts';

/**
 * The safety net behind the outbox for deliveries already past it: a delivery still `pending` long after its
 * attempt was due has lost its job (Redis lost data, or BullMQ gave the job up as stalled too often). Re-adds those
 * jobs (jobId = deliveryId, so a job that does exist is left alone) and returns how many it re-added. The webhook-
 * worker runs it every minute; several replicas running it at once is harmless.
 * @example await requeueOverdueDeliveries(deps, { overdueMs: 10 * 60_000 });
 */
export async function requeueOverdueDeliveries(
  deps: Pick<Deps, 'db' | 'queues' | 'redis' | 'now'>,
  options: { overdueMs?: number; batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - (options.overdueMs ?? 10 * 60_000));
  const batchSize = options.batchSize ?? 500;
  let requeued = 0;
  let after: { at: Date; id: string } | null = null;
  // page by page: after Redis restarted empty, thousands may be overdue at once (one page of 500 left 252 of them
  // to the sweep ten minutes later)
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch += 1) {
    const overdue = await selectOverdueDeliveries(deps.db, cutoff, { after, limit: batchSize });
    if (overdue.length === 0) break;
    const last = overdue[overdue.length - 1]!;
    after = { at: last.nextAttemptAt, id: last.id };
    requeued += await requeueLost(deps, overdue);
    if (overdue.length < batchSize) break;
  }
  return requeued;
}

/** Re-adds the jobs of those `overdue` deliveries that have none waiting; one look per delivery: these are
 * exceptions (normally none), never the send path. */
async function requeueLost(deps: Pick<Deps, 'queues' | 'redis' | 'now'>, overdue: OverdueDelivery[]): Promise<number> {
  let requeued = 0;
  for (const { id, orgId, createdAt, isBulk } of overdue) {
    const queueName = webhookQueueOf(isBulk ? 'bulk' : 'transactional');
    const queue = deps.queues[queueName];
    const job = await queue.getJob(id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') continue;
    // A finished job would make the add below a no-op (same jobId), so it goes first.
    if (job) await job.remove();
    // in its lane and with its organization's turn, as the outbox adds it
    await addJobs(deps, [{ queue: queueName, jobId: id, orgId, createdAt }]);
    requeued += 1;
  }
  return requeued;
}
