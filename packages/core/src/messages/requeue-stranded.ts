import { sendQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { listOverdueMessages, type OverdueMessage } from './message.store.ts';

/**
 * The messages among `rows` whose job is not in Redis in any state: one pipelined EXISTS per queue (on a Redis
 * Cluster each queue's keys live in a slot of their own, and a pipeline stays within one). A message's job is in its
 * lane's queue (sendQueueOf) and nowhere else.
 */
async function withoutJob({ queues, redis }: Pick<Deps, 'queues' | 'redis'>, rows: OverdueMessage[]): Promise<OverdueMessage[]> {
  const missing = await Promise.all(
    (['email', 'sms', 'email-bulk', 'sms-bulk'] as const).map(async (queue) => {
      const ofQueue = rows.filter((row) => sendQueueOf(row) === queue);
      if (ofQueue.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const row of ofQueue) pipeline.exists(queues[queue].toKey(row.id));
      const answers = (await pipeline.exec()) ?? [];
      return ofQueue.filter((_, i) => answers[i]?.[1] === 0);
    }),
  );
  const missingIds = new Set(missing.flat().map((row) => row.id));
  return rows.filter((row) => missingIds.has(row.id));
}

/**
 * The safety net behind the outbox for messages already past it: a message still `queued` or `sending` long after
 * its last change, or still `scheduled` long after its time, whose job is gone from Redis (Redis restarted without
 * its data) would wait forever. Re-adds those jobs (jobId = message id). A job that exists in any state is left
 * alone: its worker decides. One query and one pipelined EXISTS per batch of `batchSize`, at most `maxBatches`
 * batches per kind and run; the send-worker runs it every minute, and replicas running it at once are harmless.
 * @returns how many jobs it re-added
 * @example await requeueStrandedMessages(deps, { overdueMs: 10 * 60_000 });
 */
export async function requeueStrandedMessages(
  deps: Pick<Deps, 'db' | 'queues' | 'redis' | 'config' | 'now' | 'logger' | 'batchers'>,
  options: { overdueMs?: number; batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - (options.overdueMs ?? 10 * 60_000)).toISOString();
  const batchSize = options.batchSize ?? 500;
  let requeued = 0;
  for (const kind of ['unfinished', 'scheduled'] as const) {
    let after: { at: Date; id: string } | null = null;
    for (let batch = 0; batch < (options.maxBatches ?? 20); batch += 1) {
      const rows = await listOverdueMessages(deps.db, kind, cutoff, { after, limit: batchSize });
      if (rows.length === 0) break;
      const last = rows[rows.length - 1]!;
      after = { at: kind === 'unfinished' ? last.updatedAt : last.scheduledAt!, id: last.id };
      const lost = await withoutJob(deps, rows);
      // nothing to write: only jobs to add again, given up quietly like any dispatch when Redis does not take them
      await unitOfWork(deps, async (_db, outbox) => outbox.add(lost.map((m) => ({ queue: sendQueueOf(m), jobId: m.id, orgId: m.orgId, runAt: m.scheduledAt }))), {
        transaction: false,
      });
      requeued += lost.length;
      if (rows.length < batchSize) break;
    }
  }
  if (requeued > 0) deps.logger.warn({ requeued }, 're-added the lost jobs of stranded messages');
  return requeued;
}
