import type { Contact, CreateSegmentBody, ListQuery, Segment, SegmentCriteria, SegmentWithCount, UpdateSegmentBody } from '@tidings/contracts';
import type { Segment as SegmentRow } from '@tidings/db';
import { countContacts, queryContacts } from '../contacts/query-contacts.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { compileCriteria } from './criteria-sql.ts';
import { findSegment } from './find-segment.ts';

/**
 * The API's view of a segment row.
 * @example c.json(toSegment(row), 200)
 */
export function toSegment(row: SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    criteria: row.criteria as SegmentCriteria,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The segment with how many contacts match it now (one COUNT in SQL). */
async function withCount(deps: Pick<Deps, 'db'>, row: SegmentRow): Promise<SegmentWithCount> {
  const contactCount = await countContacts(deps, row.orgId, [compileCriteria(row.criteria as SegmentCriteria)]);
  return { ...toSegment(row), contactCount };
}

/**
 * segment.create: 201 with `contactCount`. Criteria were validated by `SegmentCriteriaSchema`.
 * @example await createSegment(deps, orgId, { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } }) // { ..., contactCount: 12 }
 */
export async function createSegment(deps: Pick<Deps, 'db'>, orgId: string, input: CreateSegmentBody): Promise<SegmentWithCount> {
  const row = await deps.db.segment.create({ data: { id: newId('seg'), orgId, name: input.name, criteria: input.criteria } });
  return withCount(deps, row);
}

/**
 * segment.list: newest first, without counts (each would be its own query over contacts).
 * @example await listSegments(deps, orgId, { limit: 20, offset: 0 })
 */
export async function listSegments({ db }: Pick<Deps, 'db'>, orgId: string, query: ListQuery): Promise<Page<Segment>> {
  return paginate(query, ({ where, ...page }) => db.segment.findMany({ where: { orgId, ...where }, ...page }), toSegment);
}

/**
 * segment.get: with `contactCount` evaluated now.
 * @example (await getSegment(deps, orgId, id)).contactCount
 */
export async function getSegment(deps: Pick<Deps, 'db'>, orgId: string, id: string): Promise<SegmentWithCount> {
  return withCount(deps, await findSegment(deps, orgId, id));
}

/**
 * segment.update: name and/or criteria.
 * @example await updateSegment(deps, orgId, id, { name: 'Paying' })
 */
export async function updateSegment(deps: Pick<Deps, 'db'>, orgId: string, id: string, input: UpdateSegmentBody): Promise<SegmentWithCount> {
  const current = await findSegment(deps, orgId, id);
  const row = await deps.db.segment.update({ where: { id: current.id }, data: { name: input.name, criteria: input.criteria } });
  return withCount(deps, row);
}

/**
 * segment.delete: the contacts stay; only the saved filter goes.
 * @example await deleteSegment(deps, orgId, id);
 */
export async function deleteSegment({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<void> {
  const { count } = await db.segment.deleteMany({ where: { id, orgId } });
  if (count === 0) throw new AppError('NOT_FOUND', 'Segment not found');
}

/**
 * segment.listContacts: the contacts matching the criteria now, newest first, evaluated in SQL.
 * @example await listSegmentContacts(deps, orgId, id, { limit: 100, offset: 0 })
 */
export async function listSegmentContacts(deps: Pick<Deps, 'db'>, orgId: string, id: string, query: ListQuery): Promise<Page<Contact>> {
  const segment = await findSegment(deps, orgId, id);
  return queryContacts(deps, orgId, [compileCriteria(segment.criteria as SegmentCriteria)], query);
}
