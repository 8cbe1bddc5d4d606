import { Prisma, queryPrepared, type Db } from '@tidings/db';
import type { QueueName } from '@tidings/queue';
import type { OutboxItem } from './outbox.ts';

/**
 * The INSERT of outbox rows, for a statement that writes work and the promise of its jobs at once (as a CTE:
 * `jobs AS (${outboxInsert(items)})`); `onlyIf` makes the rows depend on the rest of the statement (it may name
 * `u."jobId"`).
 */
export function outboxInsert(items: OutboxItem[], onlyIf: Prisma.Sql = Prisma.sql`true`): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "OutboxEntry" ("queue", "jobId", "runAt", "createdAt")
    SELECT u.*, now() AT TIME ZONE 'UTC'
    FROM unnest(${items.map((i) => i.queue)}::text[], ${items.map((i) => i.jobId)}::text[],
                ${items.map((i) => i.runAt?.toISOString() ?? null)}::timestamp[]) u("queue", "jobId", "runAt")
    WHERE ${onlyIf}
    ON CONFLICT DO NOTHING`;
}

/** Writes outbox rows in the caller's transaction: the promise that these jobs will reach their queues. */
export async function writeOutbox(tx: Prisma.TransactionClient, items: OutboxItem[]): Promise<void> {
  if (items.length > 0) await tx.$executeRaw(outboxInsert(items));
}

/** Deletes the rows of jobs added (one statement for any number; through pg, prepared by name). */
export async function deleteOutboxRows(db: Db, items: Pick<OutboxItem, 'queue' | 'jobId'>[]): Promise<void> {
  await queryPrepared(
    db,
    Prisma.sql`DELETE FROM "OutboxEntry" WHERE ("queue", "jobId") IN (SELECT * FROM unnest(${items.map((i) => i.queue)}::text[], ${items.map((i) => i.jobId)}::text[]))`,
  );
}

/** The oldest rows written before `before`, locked for this transaction; rows another relay holds are skipped. */
export function lockDueOutboxRows(tx: Prisma.TransactionClient, before: Date, limit: number) {
  return tx.$queryRaw<{ id: bigint; queue: QueueName; jobId: string; runAt: Date | null }[]>`
    SELECT "id", "queue", "jobId", "runAt" FROM "OutboxEntry"
    WHERE "createdAt" < ${before}
    ORDER BY "id" LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/** Deletes rows by id (those the relay added). */
export async function deleteOutboxRowsById(tx: Prisma.TransactionClient, ids: bigint[]): Promise<void> {
  await tx.outboxEntry.deleteMany({ where: { id: { in: ids } } });
}
