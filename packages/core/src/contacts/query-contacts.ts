import type { Contact } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { decodeCursor, encodeCursor, type Page } from '../pagination.ts';
import { toContact } from './contact-fields.ts';
import { countMatchingContacts, findPreviewContact, selectContactsPage } from './contact.store.ts';

/**
 * One page of the organization's contacts matching every condition in `where` (SQL over the alias `c`), newest first
 * with keyset or offset paging (raw SQL in the store: segment criteria compile to SQL).
 * @example await queryContacts(deps, orgId, [compileCriteria(criteria)], { limit: 20, offset: 0 });
 */
export async function queryContacts(
  { reads }: Pick<Deps, 'reads'>,
  orgId: string,
  where: Prisma.Sql[],
  page: { limit: number; offset: number; cursor?: string },
): Promise<Page<Contact>> {
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const rows = await selectContactsPage(reads, orgId, where, { after, take: page.limit + 1, skip: page.offset });
  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  const last = pageRows.at(-1);
  return { data: pageRows.map(toContact), hasMore, nextCursor: hasMore && last ? encodeCursor(last) : null };
}

/**
 * How many of the organization's contacts match every condition in `where`.
 * @example await countContacts(deps, orgId, [compileCriteria(criteria)]) // 42
 */
export async function countContacts({ reads }: Pick<Deps, 'reads'>, orgId: string, where: Prisma.Sql[]): Promise<number> {
  return countMatchingContacts(reads, orgId, where);
}

/**
 * The contact a template preview fills `contact.*` from: `contactId` of this organization, else its newest one;
 * undefined when there is none.
 * @example const contact = await previewContact(deps, orgId, c.req.query('contactId'));
 */
export async function previewContact({ db }: Pick<Deps, 'db'>, orgId: string, contactId?: string) {
  return (await findPreviewContact(db, orgId, contactId)) ?? undefined;
}
