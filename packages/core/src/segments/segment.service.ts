import type { Contact, CreateSegmentBody, ListQuery, Segment, SegmentCriteria, SegmentWithCount, UpdateSegmentBody } from '@tidings/contracts';
import type { Segment as SegmentRow } from '@tidings/db';
import { jobDataFor, takeTurns } from '@tidings/queue';
import { countContacts, queryContacts } from '../contacts/query-contacts.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { compileCriteria } from './criteria.store.ts';
import { findSegment } from './find-segment.ts';
import { deleteOrgSegment, findSegmentById, insertSegment, listSegmentsPage, saveSegmentCount, updateSegmentRow } from './segment.store.ts';

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

/** The segment with its count as last stored, and when it was counted. */
function withStoredCount(row: SegmentRow & { contactCount: number; countedAt: Date }): SegmentWithCount {
  return { ...toSegment(row), contactCount: row.contactCount, countedAt: row.countedAt.toISOString() };
}

/**
 * Counts the segment's contacts now (one COUNT in SQL, as costly as the criteria) and stores the count with its time.
 * Run at create (the writer waits for it, bounded by the statement timeout) and by the `segment-counts` job; never by
 * a read or an update.
 * @example await countSegment(deps, row) // { ...row, contactCount: 12, countedAt }
 */
export async function countSegment(deps: Pick<Deps, 'db' | 'reads'>, row: SegmentRow) {
  const countedAt = new Date();
  const contactCount = await countContacts(deps, row.orgId, [compileCriteria(row.criteria as SegmentCriteria)]);
  await saveSegmentCount(deps.db, row, contactCount, countedAt);
  return { ...row, contactCount, countedAt };
}

/**
 * The `segment-counts` job: counts the segment again (gone, or updated again since the update of `updatedAt` asked:
 * nothing to do, the latest update's own job counts it).
 * @example await recountSegment(deps, 'seg_...')
 */
export async function recountSegment(deps: Pick<Deps, 'db' | 'reads'>, segmentId: string, updatedAt?: number): Promise<{ contactCount: number | null }> {
  const row = await findSegmentById(deps.db, segmentId);
  if (!row || (updatedAt !== undefined && row.updatedAt.getTime() !== updatedAt)) return { contactCount: null };
  return { contactCount: (await countSegment(deps, row)).contactCount };
}

/** How long an update's recount waits: criteria changed again meanwhile are counted once, by the latest's job. */
const RECOUNT_AFTER_UPDATE_MS = 2_000;

/**
 * Asks for a background recount of `row` (a `segment-counts` job, in its organization's turn: the recounts of one
 * organization's flood of updates wait behind each other, in the send-worker's two slots, never in anyone's request).
 * `version`: an update's, so each new version of the criteria gets a job of its own, run RECOUNT_AFTER_UPDATE_MS
 * later; a version updated again by then skips (a flood of updates counts once, after it). A Redis that does not
 * answer leaves the stored count, and a later read asks again.
 */
async function askForCount(deps: Pick<Deps, 'redis' | 'queues' | 'logger'>, row: SegmentRow, version?: Date): Promise<void> {
  const queue = deps.queues['segment-counts'];
  const jobId = version ? `${row.id}.${version.getTime()}` : row.id;
  try {
    const [priority] = await takeTurns(deps.redis, queue, [row.orgId]);
    // removed once done, so that the next stale read can ask again
    await queue.add('segment-counts', jobDataFor('segment-counts', jobId), {
      jobId,
      priority,
      delay: version ? RECOUNT_AFTER_UPDATE_MS : undefined,
      removeOnComplete: true,
      removeOnFail: true,
    });
  } catch (error) {
    deps.logger.warn({ err: error, segmentId: row.id }, 'could not ask for a segment count');
  }
}

/**
 * segment.create: 201 with `contactCount`. Criteria were validated by `SegmentCriteriaSchema`.
 * @example await createSegment(deps, orgId, { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } }) // { ..., contactCount: 12 }
 */
export async function createSegment(deps: Pick<Deps, 'db' | 'reads'>, orgId: string, input: CreateSegmentBody): Promise<SegmentWithCount> {
  const row = await insertSegment(deps.db, { id: newId('seg'), orgId, name: input.name, criteria: input.criteria });
  return withStoredCount(await countSegment(deps, row));
}

/**
 * segment.list: newest first, without counts (each would be its own query over contacts).
 * @example await listSegments(deps, orgId, { limit: 20, offset: 0 })
 */
export async function listSegments({ reads }: Pick<Deps, 'reads'>, orgId: string, query: ListQuery): Promise<Page<Segment>> {
  return paginate(query, (page) => listSegmentsPage(reads, orgId, page), toSegment);
}

/**
 * segment.get: with `contactCount` as last counted and `countedAt`. A read never runs the segment's query (twelve
 * concurrent reads of an expensive segment were twelve table scans, and starved every other organization): a count
 * older than SEGMENT_COUNT_MAX_AGE_MS is refreshed by a `segment-counts` job, one waiting per segment however many
 * reads ask. Only a segment never counted (made before counts were stored) is counted in place, once.
 * @example (await getSegment(deps, orgId, id)).contactCount
 */
export async function getSegment(deps: Pick<Deps, 'db' | 'reads' | 'redis' | 'queues' | 'config' | 'logger'>, orgId: string, id: string): Promise<SegmentWithCount> {
  const row = await findSegment(deps, orgId, id);
  if (row.contactCount === null || row.countedAt === null) return withStoredCount(await countSegment(deps, row));
  if (Date.now() - row.countedAt.getTime() > deps.config.segmentCountMaxAgeMs) await askForCount(deps, row);
  return withStoredCount({ ...row, contactCount: row.contactCount, countedAt: row.countedAt });
}

/**
 * segment.update: name and/or criteria. New criteria are counted in the background (`askForCount`), not in the
 * request: the answer carries the count stored before, whose `countedAt` is then older than `updatedAt`, until the
 * recount stores the new one (16 concurrent updates of an expensive segment, each counting in its request, slowed
 * every other organization tenfold).
 * @example await updateSegment(deps, orgId, id, { name: 'Paying' })
 */
export async function updateSegment(
  deps: Pick<Deps, 'db' | 'reads' | 'redis' | 'queues' | 'logger'>,
  orgId: string,
  id: string,
  input: UpdateSegmentBody,
): Promise<SegmentWithCount> {
  const current = await findSegment(deps, orgId, id);
  const row = await updateSegmentRow(deps.db, current.id, { name: input.name, criteria: input.criteria });
  // a segment never counted (made before counts were stored) is counted once, as its first read would
  if (row.contactCount === null || row.countedAt === null) return withStoredCount(await countSegment(deps, row));
  if (input.criteria) await askForCount(deps, row, row.updatedAt);
  return withStoredCount({ ...row, contactCount: row.contactCount, countedAt: row.countedAt });
}

/**
 * segment.delete: the contacts stay; only the saved filter goes.
 * @example await deleteSegment(deps, orgId, id);
 */
export async function deleteSegment({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<void> {
  const count = await deleteOrgSegment(db, orgId, id);
  if (count === 0) throw new AppError('NOT_FOUND', 'Segment not found');
}

/**
 * segment.listContacts: the contacts matching the criteria now, newest first, evaluated in SQL.
 * @example await listSegmentContacts(deps, orgId, id, { limit: 100, offset: 0 })
 */
export async function listSegmentContacts(deps: Pick<Deps, 'db' | 'reads'>, orgId: string, id: string, query: ListQuery): Promise<Page<Contact>> {
  const segment = await findSegment(deps, orgId, id);
  return queryContacts(deps, orgId, [compileCriteria(segment.criteria as SegmentCriteria)], query);
}
