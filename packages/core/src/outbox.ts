import { jobDataFor, type QueueName } from '@tidings/queue';
import { jobTelemetry, untraced, withTrace, type RequestTrace } from '@tidings/runtime';
import type { Batchers } from './batchers.ts';
import type { Deps } from './deps.ts';
import { deleteOutboxRows, deleteOutboxRowsById, lockDueOutboxRows } from './outbox.store.ts';

/**
 * A job to add. `createdAt` (a webhook delivery's partition key) goes into the job's data when it is added at once;
 * the outbox table does not keep it, so a job the relay adds goes without (the worker then finds the row slower).
 * `trace`: the request whose trace the job continues, when several requests' jobs are added together (group
 * commit); without it, the job continues the active trace.
 */
export type OutboxItem = { queue: QueueName; jobId: string; runAt?: Date | null; createdAt?: Date; trace?: RequestTrace };

/**
 * Adds the jobs now, one call per queue (addBulk; one job is one script call), and throws when Redis does not take
 * them. For work whose own job is the promise (a broadcast's fan-out chunk re-adds its messages when it runs again);
 * everything else goes through the outbox.
 * @example await addJobs(deps, ids.map((id) => ({ queue: 'email', jobId: id })));
 */
export async function addJobs({ queues, now }: Pick<Deps, 'queues' | 'now'>, items: OutboxItem[]): Promise<void> {
  const byQueue = new Map<QueueName, OutboxItem[]>();
  for (const item of items) {
    const list = byQueue.get(item.queue);
    if (list) list.push(item);
    else byQueue.set(item.queue, [item]);
  }
  await Promise.all(
    [...byQueue].map(([queue, list]) => {
      const jobs = list.map((i) => ({
        name: queue,
        data: jobDataFor(queue, i.jobId, i.createdAt),
        opts: { jobId: i.jobId, delay: i.runAt ? Math.max(0, i.runAt.getTime() - now().getTime()) : undefined, telemetry: jobTelemetry(i.trace) },
      }));
      const target = queues[queue] as { add: (name: string, data: unknown, opts: unknown) => Promise<unknown>; addBulk: (jobs: unknown[]) => Promise<unknown> };
      // one job (a single send) is one script call; addBulk wraps even one job in MULTI. The producer span is the
      // first job's request's child; in a bulk each job still continues its own request's trace (`telemetry`).
      return withTrace(list[0]!.trace, () => (jobs.length === 1 ? target.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts) : target.addBulk(jobs)));
    }),
  );
}

/** What dispatching needs: the queues, and the process's outbox deletes (which wait for other dispatches' rows). */
export type DispatchDeps = Pick<Deps, 'queues' | 'now' | 'logger'> & { batchers: Pick<Batchers, 'outboxDeletes'> };

/**
 * After commit: adds the jobs (one call per queue); their outbox rows are deleted a moment later, together with
 * other dispatches' (`OutboxDeletes`). When Redis is down this fails quietly, leaving the rows for the relay;
 * the caller's request still succeeds because the work is committed.
 */
export async function dispatchOutbox(deps: DispatchDeps, items: OutboxItem[]): Promise<void> {
  if (items.length === 0) return;
  try {
    await addJobs(deps, items);
  } catch (error) {
    deps.logger.warn({ err: error, count: items.length }, 'enqueue after commit failed; the outbox relay will retry');
    return;
  }
  deps.batchers.outboxDeletes.deleteSoon(items);
}

/** How long the rows of added jobs wait for other dispatches' before one DELETE removes them all. */
const DELETE_AFTER_MS = 20;

/**
 * The outbox rows of jobs just added, deleted within `DELETE_AFTER_MS` by one statement for every dispatch of that
 * time (a DELETE after each write was a tenth of message.send's CPU). `flush` deletes the waiting rows now (closing
 * does, so a stopping process leaves none behind). A row that outlives its job's add only makes the relay add that
 * job again after its grace period, harmlessly (jobId dedupes; a finished job finds its work done).
 */
export type OutboxDeletes = { deleteSoon(items: OutboxItem[]): void; flush(): Promise<void> };

/**
 * One process's outbox deletes, made with its dependencies and flushed when they close.
 * @example const deletes = createOutboxDeletes({ db, logger }); deletes.deleteSoon(items); await deletes.flush();
 */
export function createOutboxDeletes(deps: Pick<Deps, 'db' | 'logger'>): OutboxDeletes {
  const pending: OutboxItem[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const items = pending.splice(0);
    if (items.length === 0) return;
    try {
      // bookkeeping, no span of its own; through pg, prepared by name (Prisma's raw-query plumbing costs more than it)
      await untraced(() => deleteOutboxRows(deps.db, items));
    } catch (error) {
      deps.logger.warn({ err: error, count: items.length }, 'could not delete the outbox rows of added jobs; the relay will add them again, harmlessly');
    }
  };
  return {
    deleteSoon(items) {
      pending.push(...items);
      // unref: a process that exits meanwhile leaves its rows to the relay
      timer ??= setTimeout(() => void flush(), DELETE_AFTER_MS).unref();
    },
    flush,
  };
}

/**
 * The relay: enqueues outbox rows older than `graceMs` (their own request had its chance) and deletes them, in
 * batches, `FOR UPDATE SKIP LOCKED` so several relays never take the same rows. jobId dedupes a job added twice.
 * @returns how many rows it moved
 */
export async function relayOutbox(deps: Pick<Deps, 'db' | 'queues' | 'now'>, options: { graceMs?: number; batchSize?: number } = {}): Promise<number> {
  const graceMs = options.graceMs ?? 5_000;
  const batchSize = options.batchSize ?? 500;
  let moved = 0;
  for (;;) {
    const count = await deps.db.$transaction(async (tx) => {
      const rows = await lockDueOutboxRows(tx, new Date(deps.now().getTime() - graceMs), batchSize);
      if (rows.length === 0) return 0;
      await addJobs(deps, rows);
      await deleteOutboxRowsById(
        tx,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
    moved += count;
    if (count < batchSize) return moved;
  }
}
