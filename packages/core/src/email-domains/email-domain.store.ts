import type { Db, EmailDomain as EmailDomainRow, Prisma, Reads } from '@tidings/db';

/** The arguments `paginate` gives for one page. */
type PageArgs = { where: Prisma.EmailDomainWhereInput; orderBy: Prisma.EmailDomainOrderByWithRelationInput[]; take: number; skip: number };

/** The domain row, or null when it is not in this organization. */
export function findEmailDomainRow(db: Db, orgId: string, id: string): Promise<EmailDomainRow | null> {
  return db.emailDomain.findFirst({ where: { id, orgId } });
}

/** The id of the organization's domain of this name, or null. */
export function findEmailDomainIdByName(db: Db, orgId: string, name: string): Promise<{ id: string } | null> {
  return db.emailDomain.findFirst({ where: { orgId, name }, select: { id: true } });
}

/** Fails with P2002 when the organization has the name already (a concurrent add). */
export function insertEmailDomain(tx: Prisma.TransactionClient, row: Prisma.EmailDomainUncheckedCreateInput): Promise<EmailDomainRow> {
  return tx.emailDomain.create({ data: row });
}

/** A page of the organization's sending domains. May be served by a replica. */
export function listEmailDomainsPage(reads: Reads, orgId: string, { where, ...page }: PageArgs): Promise<EmailDomainRow[]> {
  return reads.run((db) => db.emailDomain.findMany({ where: { orgId, ...where }, ...page }));
}

export function updateEmailDomainDefaultSender(
  tx: Prisma.TransactionClient,
  id: string,
  sender: { defaultFromName: string; defaultFromAddress: string; defaultReplyTo: string | null },
): Promise<EmailDomainRow> {
  return tx.emailDomain.update({ where: { id }, data: sender });
}

export function updateEmailDomainTracking(
  tx: Prisma.TransactionClient,
  id: string,
  tracking: { openTracking: boolean | undefined; clickTracking: boolean | undefined },
): Promise<EmailDomainRow> {
  return tx.emailDomain.update({ where: { id }, data: tracking });
}

export function deleteEmailDomainRow(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<Prisma.BatchPayload> {
  return tx.emailDomain.deleteMany({ where: { id, orgId } });
}

/** Writes a check's result only while the domain's status is still `status` (so two checks at once report a change once). */
export function updateEmailDomainCheckIfStatus(
  tx: Prisma.TransactionClient,
  id: string,
  status: EmailDomainRow['status'],
  data: Prisma.EmailDomainUpdateManyMutationInput,
): Promise<Prisma.BatchPayload> {
  return tx.emailDomain.updateMany({ where: { id, status }, data });
}

export function findEmailDomainByIdOrThrow(tx: Prisma.TransactionClient, id: string): Promise<EmailDomainRow> {
  return tx.emailDomain.findUniqueOrThrow({ where: { id } });
}

/**
 * Claims up to `batchSize` pending domains not checked since `cutoff`, marking them checked at `now` in the same
 * statement with `FOR UPDATE SKIP LOCKED` so replicas never take the same ones.
 */
export function claimPendingEmailDomains(db: Db, cutoff: Date, batchSize: number, now: Date): Promise<{ id: string; lastCheckedAt: Date | null }[]> {
  return db.$queryRaw<{ id: string; lastCheckedAt: Date | null }[]>`
    WITH due AS (
      SELECT "id" FROM "EmailDomain"
      WHERE "status" = 'pending' AND ("lastCheckedAt" IS NULL OR "lastCheckedAt" < ${cutoff})
      ORDER BY "lastCheckedAt" ASC NULLS FIRST LIMIT ${batchSize} FOR UPDATE SKIP LOCKED
    )
    UPDATE "EmailDomain" d SET "lastCheckedAt" = ${now} FROM due WHERE d."id" = due."id"
    RETURNING d."id"`;
}

export function findEmailDomainsByIds(db: Db, ids: string[]): Promise<EmailDomainRow[]> {
  return db.emailDomain.findMany({ where: { id: { in: ids } } });
}

/** The organization that verified `domain` first (a domain only added, pending or failed, receives nothing): an inbound email's. */
export async function findVerifiedDomainOwner(db: Db, domain: string): Promise<string | null> {
  const found = await db.emailDomain.findFirst({
    where: { name: domain, status: 'verified' },
    orderBy: [{ verifiedAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }],
    select: { orgId: true },
  });
  return found?.orgId ?? null;
}

/** The verified domains a send may use: those named (`names`) and those with a default sender, oldest first. */
export function listSenderDomains(
  db: Db,
  orgId: string,
  names: string[],
): Promise<Pick<EmailDomainRow, 'name' | 'defaultFromAddress' | 'defaultFromName' | 'openTracking' | 'clickTracking'>[]> {
  return db.emailDomain.findMany({
    where: { orgId, status: 'verified', OR: [{ name: { in: names } }, { defaultFromAddress: { not: null } }] },
    orderBy: { createdAt: 'asc' },
    select: { name: true, defaultFromAddress: true, defaultFromName: true, openTracking: true, clickTracking: true },
  });
}

/** Marks a domain verified with every record verified (a development install's shortcut past DNS). */
export function markEmailDomainRowVerified(tx: Prisma.TransactionClient, id: string, records: Prisma.InputJsonValue, now: Date): Promise<EmailDomainRow> {
  return tx.emailDomain.update({ where: { id }, data: { status: 'verified', records, verifiedAt: now, lastCheckedAt: now } });
}
