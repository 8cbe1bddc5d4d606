import { jobDataFor, takeTurns, TURN_QUEUES, webhookQueueOf, type Lane, type QueueName, type WebhookQueue } from '@tidings/queue';
import { jobTelemetry, untraced, withTrace } from '@tidings/telemetry';
import type { Deps } from './deps.ts';
import { deleteOutboxRows, deleteOutboxRowsById, lockDueOutboxRows } from './outbox.store.ts';
import type { OutboxItem } from './outbox.store.ts';

/**
 * How much before its row's time (a scheduled message's or broadcast's `scheduledAt`, a webhook retry's
 * `nextAttemptAt`) a job may run and still count as due: the clocks of Redis, the hosts and the worker differ a
 * little. Within it, the work goes now rather than being parked again for a moment.
 */
export const EARLY_TOLERANCE_MS = 1_000;

export type { OutboxItem } from './outbox.store.ts';

/**
 * The lane of the deliveries of a message's events: bulk for a broadcast's message (as its send job), else
 * transactional; the same rule the statement of `eventsCte` writes into the outbox.
 * @example deliveryLaneOf({ broadcastId: 'brd_1' }) // 'bulk'
 */
export function deliveryLaneOf(message: { broadcastId?: string | null }): Lane {
  return message.broadcastId ? 'bulk' : 'transactional';
}

/**
 * The delivery jobs a statement built on `eventsCte` created, to add after commit (unitOfWork); with each delivery's
 * `createdAt` where the statement returned it, so the worker reads only its partition, and its organization (its turn). `lane`: that of their events
 * (`deliveryLaneOf`), transactional unless they are about a broadcast's message.
 */
export function deliveryJobs(rows: { id: string; orgId: string; createdAt?: Date | null; queue?: WebhookQueue }[], lane: Lane = 'transactional'): OutboxItem[] {
  const queue = webhookQueueOf(lane);
  return rows.map((row) => ({ queue: row.queue ?? queue, jobId: row.id, orgId: row.orgId, createdAt: row.createdAt ?? undefined }));
}

/**
 * The BullMQ priority of each item (0: none): in a send or webhook lane, jobs due now take turns between their
 * organizations. A delayed job (a scheduled send) goes first when its time comes: it has waited already.
 */
async function prioritiesOf({ queues, redis, now }: Pick<Deps, 'queues' | 'redis' | 'now'>, queue: QueueName, items: OutboxItem[]): Promise<number[]> {
  const isDue = (i: OutboxItem) => i.orgId !== undefined && !(i.runAt && i.runAt.getTime() > now().getTime());
  const due = TURN_QUEUES.has(queue) ? items.filter(isDue) : [];
  if (due.length === 0) return items.map(() => 0);
  const turns = await takeTurns(
    redis,
    queues[queue],
    due.map((i) => i.orgId!),
  );
  let next = 0;
  return items.map((i) => (isDue(i) ? turns[next++]! : 0));
}

/**
 * Adds the jobs now, one call per queue (addBulk; one job is one script call), and throws when Redis does not take
 * them. For work whose own job is the promise (a broadcast's fan-out chunk re-adds its messages when it runs again);
 * everything else goes through the outbox (unit-of-work.ts dispatches it after commit).
 * @example await addJobs(deps, ids.map((id) => ({ queue: 'email', jobId: id })));
 */
export async function addJobs(deps: Pick<Deps, 'queues' | 'redis' | 'now'>, items: OutboxItem[]): Promise<void> {
  const { queues, now } = deps;
  const byQueue = new Map<QueueName, OutboxItem[]>();
  for (const item of items) {
    const list = byQueue.get(item.queue);
    if (list) list.push(item);
    else byQueue.set(item.queue, [item]);
  }
  await Promise.all(
    [...byQueue].map(async ([queue, list]) => {
      const priorities = await prioritiesOf(deps, queue, list);
      const jobs = list.map((i, n) => ({
        name: queue,
        data: jobDataFor(queue, i.jobId, i.createdAt),
        opts: {
          jobId: i.jobId,
          delay: i.runAt ? Math.max(0, i.runAt.getTime() - now().getTime()) : undefined,
          priority: priorities[n] || undefined,
          telemetry: jobTelemetry(i.trace),
        },
      }));
      const target = queues[queue] as { add: (name: string, data: unknown, opts: unknown) => Promise<unknown>; addBulk: (jobs: unknown[]) => Promise<unknown> };
      // one job (a single send) is one script call; addBulk wraps even one job in MULTI. The producer span is the
      // first job's request's child; in a bulk each job still continues its own request's trace (`telemetry`).
      return withTrace(list[0]!.trace, () => (jobs.length === 1 ? target.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts) : target.addBulk(jobs)));
    }),
  );
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
export async function relayOutbox(deps: Pick<Deps, 'db' | 'queues' | 'redis' | 'now'>, options: { graceMs?: number; batchSize?: number } = {}): Promise<number> {
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
