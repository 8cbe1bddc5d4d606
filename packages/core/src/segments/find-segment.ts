import type { Segment as SegmentRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { findOrgSegment } from './segment.store.ts';

/**
 * The organization's segment, or NOT_FOUND (another organization's id included).
 * @example const segment = await findSegment(deps, orgId, query.segmentId);
 */
export async function findSegment({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<SegmentRow> {
  return foundOr404(await findOrgSegment(db, orgId, id), 'Segment');
}
