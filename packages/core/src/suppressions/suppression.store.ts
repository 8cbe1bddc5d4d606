import type { SuppressionListQuery } from '@tidings/contracts';
import type { Db, Prisma, Reads, Suppression as SuppressionRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

/**
 * One page of the organization's suppressions; filters `channelType`, `reason` and `address` (an email address
 * lower-cased, as sends compare it); with `mode` only that mode's. May be served by a replica.
 */
export async function listSuppressionsPage(
  reads: Reads,
  orgId: string,
  { query, mode }: { query: SuppressionListQuery; mode: KeyMode | undefined },
  { where: keyset, ...page }: { where: Prisma.SuppressionWhereInput } & Pick<Prisma.SuppressionFindManyArgs, 'orderBy' | 'take' | 'skip'>,
): Promise<SuppressionRow[]> {
  const where: Prisma.SuppressionWhereInput = {
    orgId,
    ...(mode && { mode }),
    ...(query.reason && { reason: query.reason }),
    ...(query.channelType === 'email' && { recipient: { contains: '@' } }),
    ...(query.channelType === 'sms' && { NOT: { recipient: { contains: '@' } } }),
    ...(query.address && { recipient: query.address.includes('@') ? query.address.trim().toLowerCase() : query.address.trim() }),
  };
  return reads.run((db) => db.suppression.findMany({ where: { AND: [where, keyset] }, ...page }));
}

/** One suppression of the organization; with `mode`, null for another mode's. */
export async function findSuppression(db: Db, orgId: string, id: string, mode: KeyMode | undefined): Promise<SuppressionRow | null> {
  return db.suppression.findFirst({ where: { id, orgId, ...(mode && { mode }) } });
}

/** Suppresses the recipient on the list of `mode`; undefined when it is already on it, whatever the reason. */
export async function insertSuppressionIfAbsent(
  tx: Prisma.TransactionClient,
  row: { orgId: string; recipient: string; mode: KeyMode; reason: SuppressionRow['reason'] },
): Promise<SuppressionRow | undefined> {
  const { orgId, recipient, mode, reason } = row;
  const [created] = await tx.$queryRaw<SuppressionRow[]>`
      INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
      VALUES (${orgId}, ${recipient}, ${mode}::"ApiKeyMode", ${reason}::"SuppressionReason", now() AT TIME ZONE 'UTC')
      ON CONFLICT DO NOTHING
      RETURNING *`;
  return created;
}

/** Deletes the organization's suppression (with `mode`, only that mode's); how many it deleted (0 or 1). */
export async function deleteOrgSuppression(tx: Prisma.TransactionClient, orgId: string, id: string, mode: KeyMode | undefined): Promise<number> {
  const { count } = await tx.suppression.deleteMany({ where: { id, orgId, ...(mode && { mode }) } });
  return count;
}

/** Suppresses the number with reason `stopped`: an `unsubscribed` row becomes `stopped`; a bounce or complaint row stays. */
export async function upsertStoppedSuppression(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
    VALUES (${orgId}, ${phone}, ${mode}::"ApiKeyMode", 'stopped'::"SuppressionReason", now() AT TIME ZONE 'UTC')
    ON CONFLICT ("orgId", "recipient", "mode") DO UPDATE SET "reason" = 'stopped' WHERE "Suppression"."reason" = 'unsubscribed'`;
}

/** Lifts the number's `stopped` or `unsubscribed` suppression of `mode` (never a bounce or complaint). */
export async function deleteOptOutSuppressions(tx: Prisma.TransactionClient, orgId: string, phone: string, mode: KeyMode): Promise<void> {
  await tx.suppression.deleteMany({ where: { orgId, recipient: phone, mode, reason: { in: ['stopped', 'unsubscribed'] } } });
}

/**
 * An `unsubscribed` suppression for each of `recipients` (an existing bounce or complaint row is kept as it is), in
 * one statement for any number. Suppression rows kept in step with contacts' subscription flags.
 */
export async function insertUnsubscribedSuppressions(tx: Prisma.TransactionClient, orgId: string, recipients: string[]): Promise<void> {
  // unnest with one array parameter: Prisma's createMany binds each value and is several times slower in bulk.
  // Times are UTC, as Prisma stores them, whatever the session's time zone.
  await tx.$executeRaw`
      INSERT INTO "Suppression" ("orgId", "recipient", "reason", "createdAt")
      SELECT ${orgId}, recipient, 'unsubscribed'::"SuppressionReason", now() AT TIME ZONE 'UTC' FROM unnest(${recipients}::text[]) AS recipient
      ON CONFLICT DO NOTHING`;
}

/** Removes only the `unsubscribed` suppressions of `recipients`, never bounces or complaints. */
export async function deleteUnsubscribedSuppressions(tx: Prisma.TransactionClient, orgId: string, recipients: string[]): Promise<void> {
  await tx.suppression.deleteMany({ where: { orgId, reason: 'unsubscribed', recipient: { in: recipients } } });
}
