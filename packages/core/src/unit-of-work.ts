import type { Db, Prisma } from '@tidings/db';
import type { Batchers, Deps } from './deps.ts';
import { addJobs, type OutboxItem } from './outbox.ts';
import { withinRedisDeadline } from './redis-deadline.ts';

/** The jobs a change promises (their outbox rows written by the change itself), added once it has committed. */
export type Outbox = { add(items: readonly OutboxItem[] | null | undefined): void };

/** What a unit of work needs: the database, and what dispatching uses (the queues, and the outbox deletes). */
export type UnitOfWorkDeps = Pick<Deps, 'db' | 'queues' | 'redis' | 'config' | 'now' | 'logger'> & { batchers: Pick<Batchers, 'outboxDeletes'> };

/** Prisma's options of an interactive transaction (a long change, such as a broadcast's start, raises its timeout). */
export type TransactionOptions = { timeout?: number; maxWait?: number };

/**
 * THE way a change is made: `work` runs in one Postgres transaction and puts on `outbox` the jobs it wrote outbox
 * rows for; after commit they are added to their queues (dispatch). Nothing is dispatched when `work` throws.
 * `{ transaction: false }`: the change is ONE statement, atomic on its own (or the shared statement of a group
 * commit, or only jobs to add again), so no interactive transaction holds a pooled connection across round trips;
 * `work` gets the client itself.
 * @example const row = await unitOfWork(deps, async (tx, outbox) => { const row = await insertContact(tx, data); outbox.add(await recordEvents(tx, events)); return row; });
 */
export function unitOfWork<T>(deps: UnitOfWorkDeps, work: (tx: Prisma.TransactionClient, outbox: Outbox) => Promise<T>, options?: TransactionOptions): Promise<T>;
export function unitOfWork<T>(deps: UnitOfWorkDeps, work: (db: Db, outbox: Outbox) => Promise<T>, options: { transaction: false }): Promise<T>;
export async function unitOfWork<T>(
  deps: UnitOfWorkDeps,
  work: (tx: Db & Prisma.TransactionClient, outbox: Outbox) => Promise<T>,
  options: TransactionOptions | { transaction: false } = {},
): Promise<T> {
  const items: OutboxItem[] = [];
  const outbox: Outbox = {
    add(more) {
      if (more) items.push(...more);
    },
  };
  const result =
    'transaction' in options
      ? await work(deps.db as Db & Prisma.TransactionClient, outbox)
      : await deps.db.$transaction((tx) => work(tx as Db & Prisma.TransactionClient, outbox), options);
  await dispatchOutbox(deps, items);
  return result;
}

/**
 * After commit: adds the jobs (one call per queue); their outbox rows are deleted a moment later, together with
 * other dispatches' (`OutboxDeletes`). When Redis is down, or slower than REDIS_REQUEST_TIMEOUT_MS, this gives up
 * quietly, leaving the rows for the relay; the caller's request still succeeds because the work is committed.
 */
async function dispatchOutbox(deps: UnitOfWorkDeps, items: OutboxItem[]): Promise<void> {
  if (items.length === 0) return;
  try {
    await withinRedisDeadline(deps.redis, deps.config.redisRequestTimeoutMs, () => addJobs(deps, items));
  } catch (error) {
    deps.logger.warn({ err: error, count: items.length }, 'enqueue after commit failed; the outbox relay will retry');
    return;
  }
  deps.batchers.outboxDeletes.deleteSoon(items);
}
