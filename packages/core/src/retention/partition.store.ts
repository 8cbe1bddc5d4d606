import type { Db, Prisma } from '@tidings/db';

/** The tables partitioned by month of "createdAt" (migrations `partitions_and_retention`, `webhook_partitions`). */
export const PARTITIONED_TABLES = ['Message', 'MessageStatusEvent', 'WebhookDelivery', 'WebhookAttempt'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const sqlTime = (at: Date) => at.toISOString().replace('T', ' ').replace('Z', '');

/** The partitions of a table with their bounds as the catalog writes them (`FOR VALUES FROM (...) TO (...)`, `DEFAULT`). */
export function selectPartitionBounds(db: Db, table: PartitionedTable): Promise<{ name: string; bound: string }[]> {
  return db.$queryRawUnsafe<{ name: string; bound: string }[]>(
    `SELECT c.relname AS "name", pg_get_expr(c.relpartbound, c.oid) AS "bound"
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    quote(table),
  );
}

/** Storage options of a table's partitions (not inherited from the parent): room in each page for HOT updates. */
const STORAGE: Partial<Record<PartitionedTable, string>> = {
  // a delivery's claim (migration webhook_claim_column)
  WebhookDelivery: ' WITH (fillfactor = 70)',
};

/**
 * Creates partition `name` of `table` for `[from, to)` and attaches it, in one transaction; rows the default partition
 * (`defaultPartition`) caught for that range move into it first, so attaching never fails on them.
 */
export async function createMonthPartition(
  db: Db,
  partition: { table: PartitionedTable; name: string; from: Date; to: Date; defaultPartition: string | undefined },
): Promise<void> {
  const { table, name, from, to, defaultPartition } = partition;
  const range = `FROM ('${sqlTime(from)}') TO ('${sqlTime(to)}')`;
  await db.$transaction([
    db.$executeRawUnsafe(`CREATE TABLE ${quote(name)} (LIKE ${quote(table)} INCLUDING DEFAULTS)${STORAGE[table] ?? ''}`),
    ...(defaultPartition
      ? [
          db.$executeRawUnsafe(
            `WITH moved AS (DELETE FROM ${quote(defaultPartition)} WHERE "createdAt" >= '${sqlTime(from)}' AND "createdAt" < '${sqlTime(to)}' RETURNING *)
               INSERT INTO ${quote(name)} SELECT * FROM moved`,
          ),
        ]
      : []),
    db.$executeRawUnsafe(`ALTER TABLE ${quote(table)} ATTACH PARTITION ${quote(name)} FOR VALUES ${range}`),
  ]);
}

/**
 * Locks partition `name` against writes (reads go on) for the rest of the transaction, waiting at most `lockTimeout`
 * for it and for every lock after it in the transaction.
 */
export async function lockPartitionForDrop(tx: Prisma.TransactionClient, name: string, lockTimeout: string): Promise<void> {
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${lockTimeout}'`);
  await tx.$executeRawUnsafe(`LOCK TABLE ${quote(name)} IN SHARE MODE`);
}

/** Whether partition `name` holds a row matching the SQL condition `condition`. */
export async function partitionHasRowWhere(tx: Prisma.TransactionClient, name: string, condition: string): Promise<boolean> {
  return (await tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${quote(name)} WHERE ${condition} LIMIT 1`)).length > 0;
}

export async function countPartitionRows(tx: Prisma.TransactionClient, name: string): Promise<number> {
  const [{ n }] = await tx.$queryRawUnsafe<[{ n: number }]>(`SELECT count(*)::int AS "n" FROM ${quote(name)}`);
  return n;
}

/** Drops partition `name` (and its rows); takes the parent's lock for the catalog change. */
export async function dropPartition(tx: Prisma.TransactionClient, name: string): Promise<void> {
  await tx.$executeRawUnsafe(`DROP TABLE ${quote(name)}`);
}
