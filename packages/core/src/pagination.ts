import { StorableDateTime, unstorableText, type ListQuery } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import { AppError } from './errors.ts';
import { olderThanPositionSql } from './pagination.store.ts';

export type Page<T> = { data: T[]; hasMore: boolean; nextCursor: string | null };

type Keyset = { createdAt: Date; id: string };

/** Encodes the position after `row` as an opaque cursor. */
export function encodeCursor(row: Keyset): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

/**
 * Decodes a cursor from `encodeCursor`. A cursor is caller input: one that is not ours, or a forged one whose date or
 * id Postgres could not compare (year 0, NUL), is BAD_REQUEST.
 * @example decodeCursor(encodeCursor({ createdAt, id })) // { createdAt, id }
 */
export function decodeCursor(cursor: string): Keyset {
  const [iso, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!iso || !id || rest.length > 0 || !StorableDateTime.safeParse(iso).success || unstorableText(id) !== null) {
    throw new AppError('BAD_REQUEST', 'cursor: not a cursor from this API');
  }
  return { createdAt: new Date(iso), id };
}

/** The Prisma `where` fragment for "older than the cursor" in `createdAt desc, id desc` order. */
export function olderThan(cursor: string | undefined) {
  if (!cursor) return {};
  const { createdAt, id } = decodeCursor(cursor);
  // `createdAt <= ` alone can start the index scan at the cursor (an OR cannot): deep pages read one page, not every
  // newer row (221 ms against 1.7 ms six months into 10 M messages)
  return { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] };
}

/** `olderThan` in SQL over a row aliased `m`; undefined without a cursor. */
export function olderThanSql(cursor: string | undefined): Prisma.Sql | undefined {
  if (!cursor) return undefined;
  const { createdAt, id } = decodeCursor(cursor);
  return olderThanPositionSql(createdAt, id);
}

/** Newest first, with `id` breaking ties, so keyset pages never skip or repeat a row. */
export const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** What `paginate` hands its fetch: the Prisma `where`, `orderBy`, `take` and `skip` of one keyset page. */
export type PageArgs = { where: ReturnType<typeof olderThan>; orderBy: typeof newestFirst; take: number; skip: number };

/**
 * Runs a list query for one page: asks for one row more than `limit` to learn `hasMore`.
 * @example
 * const page = await paginate(query, (args) => listTopicsPage(reads, orgId, args), toTopic);
 */
export async function paginate<Row extends Keyset, Item>(query: ListQuery, fetch: (args: PageArgs) => Promise<Row[]>, toItem: (row: Row) => Item): Promise<Page<Item>> {
  const rows = await fetch({ where: olderThan(query.cursor), orderBy: newestFirst, take: query.limit + 1, skip: query.offset });
  const hasMore = rows.length > query.limit;
  const pageRows = hasMore ? rows.slice(0, query.limit) : rows;
  const last = pageRows.at(-1);
  return { data: pageRows.map(toItem), hasMore, nextCursor: hasMore && last ? encodeCursor(last) : null };
}
