import type { SegmentCriteria } from '@tidings/contracts';
import type { Db, Reads, Segment as SegmentRow } from '@tidings/db';
import type { PageArgs } from '../pagination.ts';

/** The organization's segment (null for another organization's id too). */
export async function findOrgSegment(db: Db, orgId: string, id: string): Promise<SegmentRow | null> {
  return db.segment.findFirst({ where: { id, orgId } });
}

/** The segment whatever its organization: for the `segment-counts` job, which carries only the id. */
export async function findSegmentById(db: Db, id: string): Promise<SegmentRow | null> {
  return db.segment.findUnique({ where: { id } });
}

export async function insertSegment(db: Db, row: { id: string; orgId: string; name: string; criteria: SegmentCriteria }): Promise<SegmentRow> {
  return db.segment.create({ data: row });
}

/** A page of the organization's segments. May be served by a replica. */
export async function listSegmentsPage(reads: Reads, orgId: string, { where, ...page }: PageArgs): Promise<SegmentRow[]> {
  return reads.run((db) => db.segment.findMany({ where: { orgId, ...where }, ...page }));
}

/** Stores the count taken of `segment` and when it was taken. */
export async function saveSegmentCount(db: Db, segment: { id: string; updatedAt: Date }, contactCount: number, countedAt: Date): Promise<void> {
  // only while the criteria are those counted (an update meanwhile stores its own count); not an update of the
  // segment itself, so "updatedAt" stays (Prisma's updateMany would set it)
  await db.$executeRaw`
    UPDATE "Segment" SET "contactCount" = ${contactCount}::int, "countedAt" = ${countedAt.toISOString()}::timestamp
    WHERE "id" = ${segment.id} AND "updatedAt" = ${segment.updatedAt.toISOString()}::timestamp`;
}

/** A segment's new name and/or criteria; an undefined one stays. */
export async function updateSegmentRow(db: Db, id: string, changes: { name: string | undefined; criteria: SegmentCriteria | undefined }): Promise<SegmentRow> {
  return db.segment.update({ where: { id }, data: changes });
}

/** Deletes the organization's segment; how many rows went (0: none was the organization's). */
export async function deleteOrgSegment(db: Db, orgId: string, id: string): Promise<number> {
  const { count } = await db.segment.deleteMany({ where: { id, orgId } });
  return count;
}
