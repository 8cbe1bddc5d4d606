import { Prisma, queryPrepared, type Db } from '@tidings/db';
import type { QueueName } from '@tidings/queue';
import type { RequestTrace } from '@tidings/telemetry';

/**
 * A job to add. `createdAt` (a webhook delivery's partition key) goes into the job's data when it is added at once;
 * the outbox table does not keep it, so a job the relay adds goes without (the worker then finds the row slower).
 * `trace`: the request whose trace the job continues, when several requests' jobs are added together (group
 * commit); without it, the job continues the active trace. `orgId`: whose work it is, for its turn in a send or
 * webhook lane (org-turns.ts); every path that adds such a job names it.
 */
export type OutboxItem = { queue: QueueName; jobId: string; orgId?: string; runAt?: Date | null; createdAt?: Date; trace?: RequestTrace };

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

/**
 * The oldest rows written before `before`, locked for this transaction; rows another relay holds are skipped. With
 * the organization of each send or delivery job (for its turn in its lane), looked up by id: the relay is rare.
 */
export function lockDueOutboxRows(tx: Prisma.TransactionClient, before: Date, limit: number) {
  return tx.$queryRaw<{ id: bigint; queue: QueueName; jobId: string; runAt: Date | null; orgId: string | undefined }[]>`
    SELECT o."id", o."queue", o."jobId", o."runAt", CASE
      WHEN o."queue" IN ('email', 'sms', 'email-bulk', 'sms-bulk') THEN (SELECT m."orgId" FROM "Message" m WHERE m."id" = o."jobId" LIMIT 1)
      WHEN o."queue" IN ('webhooks', 'webhooks-bulk') THEN (SELECT d."orgId" FROM "WebhookDelivery" d WHERE d."id" = split_part(o."jobId", '.', 1) LIMIT 1)
    END AS "orgId"
    FROM "OutboxEntry" o
    WHERE o."createdAt" < ${before}
    ORDER BY o."id" LIMIT ${limit} FOR UPDATE OF o SKIP LOCKED`.then((rows) => rows.map((r) => ({ ...r, orgId: r.orgId ?? undefined })));
}

/** Deletes rows by id (those the relay added). */
export async function deleteOutboxRowsById(tx: Prisma.TransactionClient, ids: bigint[]): Promise<void> {
  await tx.outboxEntry.deleteMany({ where: { id: { in: ids } } });
}

/** Outbox rows not yet moved to Redis (the `tidings_outbox_backlog` gauge; it grows while Redis is unreachable). */
export function countOutboxRows(db: Db): Promise<number> {
  return db.outboxEntry.count();
}
