import { webhookQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { addJobs } from '../outbox.ts';
import { selectOverdueDeliveries } from './webhook-delivery.store.ts';

/**
 * The safety net behind the outbox for deliveries already past it: a delivery still `pending` long after its
 * attempt was due has lost its job (Redis lost data, or BullMQ gave the job up as stalled too often). Re-adds those
 * jobs (jobId = deliveryId, so a job that does exist is left alone) and returns how many it re-added. The webhook-
 * worker runs it every minute; several replicas running it at once is harmless.
 * @example await requeueOverdueDeliveries(deps, { overdueMs: 10 * 60_000 });
 */
export async function requeueOverdueDeliveries(deps: Pick<Deps, 'db' | 'queues' | 'redis' | 'now'>, options: { overdueMs?: number; batchSize?: number } = {}): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - (options.overdueMs ?? 10 * 60_000));
  const overdue = await selectOverdueDeliveries(deps.db, cutoff, options.batchSize ?? 500);
  let requeued = 0;
  // One look per overdue delivery: these are exceptions (normally none), never the send path.
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
