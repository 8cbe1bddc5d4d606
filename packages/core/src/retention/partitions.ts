import type { Deps } from '../deps.ts';
import { createMonthPartition, PARTITIONED_TABLES, selectPartitionBounds, type PartitionedTable } from './partition.store.ts';

export { PARTITIONED_TABLES, type PartitionedTable } from './partition.store.ts';

/** One partition: a month (or the legacy table: from null), or the default (both null). */
export type Partition = { name: string; from: Date | null; to: Date | null; isDefault: boolean };

const monthStart = (at: Date, plusMonths = 0) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + plusMonths, 1));
const monthName = (table: string, month: Date) => `${table}_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
const boundPattern = /FROM \((?:'([^']+)'|MINVALUE)\) TO \((?:'([^']+)'|MAXVALUE)\)/;
const parseBound = (value: string | undefined) => (value ? new Date(`${value.replace(' ', 'T')}Z`) : null);

/** The partitions of a table with their ranges, read from the catalog. */
export async function listPartitions({ db }: Pick<Deps, 'db'>, table: PartitionedTable): Promise<Partition[]> {
  const rows = await selectPartitionBounds(db, table);
  return rows.map(({ name, bound }) => {
    const match = boundPattern.exec(bound);
    return { name, from: parseBound(match?.[1]), to: parseBound(match?.[2]), isDefault: bound === 'DEFAULT' };
  });
}

/**
 * Adds the monthly partitions of `table` for the months from `from` to `to` (inclusive) that no partition covers yet.
 * Rows the default partition caught for such a month move into the new partition, in the same transaction, so adding
 * one never fails on them; normally the default is empty and this is a handful of catalog statements.
 * @example await addMonthPartitions(deps, 'Message', new Date(), new Date('2027-03-01')) // ['Message_2026_11', ...]
 */
export async function addMonthPartitions(deps: Pick<Deps, 'db'>, table: PartitionedTable, from: Date, to: Date): Promise<string[]> {
  const existing = await listPartitions(deps, table);
  const defaultPartition = existing.find((p) => p.isDefault);
  const added: string[] = [];
  for (let month = monthStart(from); month <= to; month = monthStart(month, 1)) {
    const end = monthStart(month, 1);
    const covered = existing.some((p) => !p.isDefault && (p.from === null || p.from < end) && (p.to === null || p.to > month));
    if (covered) continue;
    const name = monthName(table, month);
    await createMonthPartition(deps.db, { table, name, from: month, to: end, defaultPartition: defaultPartition?.name });
    added.push(name);
  }
  return added;
}

/** How many months ahead of the current one partitions exist, so inserts never land in the default. */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * The scheduled step: every partitioned table gets its partitions up to PARTITION_MONTHS_AHEAD months ahead.
 * @example await ensurePartitions(deps) // { Message: [], MessageStatusEvent: ['MessageStatusEvent_2027_03'] }
 */
export async function ensurePartitions(deps: Pick<Deps, 'db' | 'now' | 'logger'>): Promise<Record<PartitionedTable, string[]>> {
  const now = deps.now();
  const result = {} as Record<PartitionedTable, string[]>;
  for (const table of PARTITIONED_TABLES) {
    result[table] = await addMonthPartitions(deps, table, monthStart(now), monthStart(now, PARTITION_MONTHS_AHEAD));
    if (result[table].length > 0) deps.logger.info({ table, added: result[table] }, 'partitions added');
  }
  return result;
}
