import type { Contact } from '@tidings/contracts';
import { Prisma, type Contact as ContactRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { decodeCursor, encodeCursor, type Page } from '../pagination.ts';
import { utcTimestamp } from '../segments/criteria-sql.ts';
import { toContact } from './contact-fields.ts';

/**
 * One page of the organization's contacts matching every condition in `where` (SQL over the alias `c`), newest first
 * with keyset or offset paging. Raw SQL because segment criteria compile to SQL that Prisma's query objects cannot
 * express; everything here is bound parameters or fixed text.
 * @example await queryContacts(deps, orgId, [compileCriteria(criteria)], { limit: 20, offset: 0 });
 */
export async function queryContacts(
  { db }: Pick<Deps, 'db'>,
  orgId: string,
  where: Prisma.Sql[],
  page: { limit: number; offset: number; cursor?: string },
): Promise<Page<Contact>> {
  const conditions = [Prisma.sql`c."orgId" = ${orgId}`, ...where];
  if (page.cursor) {
    const after = decodeCursor(page.cursor);
    conditions.push(Prisma.sql`(c."createdAt", c."id") < (${utcTimestamp(after.createdAt)}, ${after.id})`);
  }
  const rows = await db.$queryRaw<ContactRow[]>`
    SELECT c.* FROM "Contact" c
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY c."createdAt" DESC, c."id" DESC
    LIMIT ${page.limit + 1} OFFSET ${page.offset}`;
  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  const last = pageRows.at(-1);
  return { data: pageRows.map(toContact), hasMore, nextCursor: hasMore && last ? encodeCursor(last) : null };
}

/**
 * How many of the organization's contacts match every condition in `where`.
 * @example await countContacts(deps, orgId, [compileCriteria(criteria)]) // 42
 */
export async function countContacts({ db }: Pick<Deps, 'db'>, orgId: string, where: Prisma.Sql[]): Promise<number> {
  const [row] = await db.$queryRaw<{ count: bigint }[]>`
    SELECT count(*) AS count FROM "Contact" c WHERE ${Prisma.join([Prisma.sql`c."orgId" = ${orgId}`, ...where], ' AND ')}`;
  return Number(row?.count ?? 0);
}
