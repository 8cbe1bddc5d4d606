import { columnsOf, Prisma, type Db, type Reads, type Contact as ContactRow, type Topic as TopicRow } from '@tidings/db';
import type { newestFirst, olderThan } from '../pagination.ts';

/** One page's arguments, as `paginate` hands them to its fetch. */
type PageArgs = { where: ReturnType<typeof olderThan>; orderBy: typeof newestFirst; take: number; skip: number };

/** The organization's topic, or null (another organization's id included). */
export function findOrgTopic(db: Db, orgId: string, id: string): Promise<TopicRow | null> {
  return db.topic.findFirst({ where: { id, orgId } });
}

/** The id and name of the organization's topic, or null. */
export function findTopicName(db: Db, orgId: string, id: string): Promise<{ id: string; name: string } | null> {
  return db.topic.findFirst({ where: { id, orgId }, select: { id: true, name: true } });
}

/** Which of `ids` are topics of the organization. */
export function selectOrgTopicIds(db: Db, orgId: string, ids: string[]): Promise<{ id: string }[]> {
  return db.topic.findMany({ where: { orgId, id: { in: ids } }, select: { id: true } });
}

export function insertTopic(tx: Prisma.TransactionClient, row: Prisma.TopicUncheckedCreateInput): Promise<TopicRow> {
  return tx.topic.create({ data: row });
}

/** A page of the organization's topics. May be served by a replica. */
export function listTopicsPage(reads: Reads, orgId: string, { where, ...page }: PageArgs): Promise<TopicRow[]> {
  return reads.run((db) => db.topic.findMany({ where: { orgId, ...where }, ...page }));
}

/** The topic as changed, or undefined when the organization has no such topic. */
export async function updateOrgTopic(tx: Prisma.TransactionClient, orgId: string, id: string, data: Prisma.TopicUpdateManyMutationInput): Promise<TopicRow | undefined> {
  const [updated] = await tx.topic.updateManyAndReturn({ where: { id, orgId }, data });
  return updated;
}

export function deleteOrgTopic(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<Prisma.BatchPayload> {
  return tx.topic.deleteMany({ where: { id, orgId } });
}

/** The organization's public topics as a preference page lists them: oldest first, at most `limit`. */
export function listPublicTopics(db: Db, orgId: string, limit: number): Promise<TopicRow[]> {
  return db.topic.findMany({ where: { orgId, visibility: 'public' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit });
}

/** Which of `ids` are public topics of the organization (those a preference form may set). */
export function selectPublicTopicIds(tx: Prisma.TransactionClient, orgId: string, ids: string[]): Promise<{ id: string }[]> {
  return tx.topic.findMany({ where: { orgId, visibility: 'public', id: { in: ids } }, select: { id: true } });
}

/**
 * A topic broadcast's one-click unsubscribe: the contact's choice for the topic becomes false, only if it was in the
 * topic (by choice or by an `opt_out` default), so a repeated POST changes nothing. Undefined when nothing changed.
 */
export async function unsubscribeContactFromTopic(
  tx: Prisma.TransactionClient,
  orgId: string,
  contactId: string,
  { topicId, now }: { topicId: string; now: Date },
): Promise<ContactRow | undefined> {
  const [contact] = await tx.$queryRaw<ContactRow[]>`
      UPDATE "Contact" c SET "topics" = c."topics" || jsonb_build_object(${topicId}::text, false), "updatedAt" = ${now.toISOString()}::timestamp
      WHERE c."id" = ${contactId} AND c."orgId" = ${orgId} AND EXISTS (
        SELECT 1 FROM "Topic" t WHERE t."id" = ${topicId} AND t."orgId" = c."orgId"
          AND coalesce((c."topics" ->> t."id")::boolean, t."defaultSubscription" = 'opt_out'))
      RETURNING ${columnsOf(Prisma.ContactScalarFieldEnum)}`;
  return contact;
}

/**
 * The SQL condition "contact `c` is in the topic": it subscribed, or it never chose and the topic is `opt_out`.
 * @example Prisma.sql`SELECT ... FROM "Contact" c WHERE ${inTopicSql(topic)}`
 */
export function inTopicSql(topic: { id: string; defaultSubscription: string }): Prisma.Sql {
  return Prisma.sql`coalesce((c."topics" ->> ${topic.id}::text)::boolean, ${topic.defaultSubscription === 'opt_out'})`;
}
