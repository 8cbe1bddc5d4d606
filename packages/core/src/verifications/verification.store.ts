import { columnsOf, Prisma, type Db, type Verification as VerificationRow } from '@tidings/db';
import type { PageArgs } from '../pagination.ts';

/** Serializes the sends to one recipient of one organization for the rest of the transaction (the cooldown and cap). */
export async function lockVerificationRecipient(tx: Prisma.TransactionClient, orgId: string, to: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`verify:${orgId}:${to}`}, 0))`;
}

/** Whose verifications a statement reads or changes: one organization's, of one key mode. */
export type VerificationScope = { orgId: string; mode: string };

/** The newest verification of `to` still pending and unexpired on the channel, or null. */
export function findPendingVerification(
  tx: Prisma.TransactionClient,
  { orgId, mode }: VerificationScope,
  { channelType, to }: { channelType: string; to: string },
  now: Date,
): Promise<VerificationRow | null> {
  return tx.verification.findFirst({ where: { orgId, mode, to, channelType, status: 'pending', expiresAt: { gt: now } }, orderBy: { createdAt: 'desc' } });
}

/** When codes went to `to` since `since` (every verification of it; one made over an hour before cannot count). */
export async function listSendTimesSince(
  tx: Prisma.TransactionClient,
  { orgId, mode }: VerificationScope,
  to: string,
  { since, oldestVerification }: { since: Date; oldestVerification: Date },
): Promise<Date[]> {
  const rows = await tx.$queryRaw<{ at: Date }[]>`
    SELECT t.at FROM "Verification" v, unnest(v."sentAt") AS t(at)
    WHERE v."orgId" = ${orgId} AND v."mode" = ${mode} AND v."to" = ${to} AND v."createdAt" >= ${oldestVerification} AND t.at >= ${since}
    ORDER BY t.at`;
  return rows.map((row) => row.at);
}

export function insertVerification(tx: Prisma.TransactionClient, row: Prisma.VerificationUncheckedCreateInput): Promise<VerificationRow> {
  return tx.verification.create({ data: row });
}

/** A resend: the new code's hash, one more send at `at`, the expiry pushed out. */
export function recordVerificationResend(tx: Prisma.TransactionClient, id: string, change: { codeHash: string; at: Date; expiresAt: Date }): Promise<VerificationRow> {
  return tx.verification.update({
    where: { id },
    data: { codeHash: change.codeHash, sendAttempts: { increment: 1 }, sentAt: { push: change.at }, expiresAt: change.expiresAt },
  });
}

/** Puts a send back as it was when its message could not be written (the row as read before the resend). */
export function restoreVerificationSend(db: Db, before: VerificationRow): Promise<unknown> {
  return db.verification.update({
    where: { id: before.id },
    data: { codeHash: before.codeHash, sendAttempts: before.sendAttempts, sentAt: before.sentAt, expiresAt: before.expiresAt },
  });
}

export function deleteVerification(db: Db, id: string): Promise<unknown> {
  return db.verification.deleteMany({ where: { id } });
}

/** Appends the message that carries the latest code. */
export function appendVerificationMessage(db: Db, id: string, messageId: string): Promise<unknown> {
  return db.verification.update({ where: { id }, data: { messageIds: { push: messageId } } });
}

/**
 * Checks a code in ONE statement: counts the attempt and decides the status together, so concurrent checks can
 * neither approve twice nor pass the attempt cap. The hashes are compared as bit strings, XORed whole and their ones
 * counted, which takes the same time wherever they differ. Undefined when the verification is not pending and
 * unexpired in this organization (nothing changed then).
 */
export async function checkVerificationCode(
  tx: Prisma.TransactionClient,
  { orgId, mode }: VerificationScope,
  id: string,
  { candidateHash, now, maxAttempts }: { candidateHash: string; now: Date; maxAttempts: number },
): Promise<VerificationRow | undefined> {
  const [row] = await tx.$queryRaw<VerificationRow[]>`
    UPDATE "Verification" v SET
      "checkAttempts" = v."checkAttempts" + 1,
      "status" = CASE WHEN m.matches THEN 'approved' WHEN v."checkAttempts" + 1 >= ${maxAttempts} THEN 'max_attempts_reached' ELSE 'pending' END,
      "approvedAt" = CASE WHEN m.matches THEN ${now}::timestamp ELSE NULL END,
      "updatedAt" = ${now}::timestamp
    FROM (SELECT bit_count(('x' || c."codeHash")::bit(256) # ('x' || ${candidateHash})::bit(256)) = 0 AS matches
          FROM "Verification" c WHERE c."id" = ${id}) m
    WHERE v."id" = ${id} AND v."orgId" = ${orgId} AND v."mode" = ${mode} AND v."status" = 'pending' AND v."expiresAt" > ${now}::timestamp
    RETURNING ${columnsOf(Prisma.VerificationScalarFieldEnum)}`;
  return row;
}

/** The organization's verification (of `mode` when given), or null (another organization's id included). */
export function findOrgVerification(db: Db | Prisma.TransactionClient, orgId: string, id: string, mode?: string): Promise<VerificationRow | null> {
  return db.verification.findFirst({ where: { id, orgId, ...(mode ? { mode } : {}) } });
}

/** Moves a pending verification to `status` (expired, canceled, failed); undefined when it was no longer pending. */
export async function settleVerification(
  tx: Prisma.TransactionClient,
  change: { orgId: string; mode: string; id: string; status: string; now: Date; onlyUnexpired: boolean },
): Promise<VerificationRow | undefined> {
  const { orgId, mode, id, status, now } = change;
  const unexpired = change.onlyUnexpired ? { expiresAt: { gt: now } } : {};
  const [row] = await tx.verification.updateManyAndReturn({ where: { id, orgId, mode, status: 'pending', ...unexpired }, data: { status, updatedAt: now } });
  return row;
}

/**
 * Marks up to `limit` pending verifications past their expiry `expired` in ONE statement, the longest overdue first;
 * rows another transaction holds (a check or cancel under way) are skipped, left to it or the next run.
 */
export function markOverdueVerificationsExpired(tx: Prisma.TransactionClient, now: Date, limit: number): Promise<VerificationRow[]> {
  return tx.$queryRaw<VerificationRow[]>`
    UPDATE "Verification" v SET "status" = 'expired', "updatedAt" = ${now}::timestamp
    WHERE v."id" IN (SELECT o."id" FROM "Verification" o WHERE o."status" = 'pending' AND o."expiresAt" <= ${now}::timestamp
                     ORDER BY o."expiresAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${columnsOf(Prisma.VerificationScalarFieldEnum)}`;
}

/** A page of the organization's verifications of `mode`; `status` as shown (a pending one past its expiry is `expired`). */
export function listVerificationsPage(
  db: Db,
  orgId: string,
  filter: { mode: string; status?: string; channelType?: string; now: Date },
  { where, ...page }: PageArgs,
): Promise<VerificationRow[]> {
  const { status, now, ...rest } = filter;
  const byStatus: Prisma.VerificationWhereInput =
    status === 'pending'
      ? { status, expiresAt: { gt: now } }
      : status === 'expired'
        ? { OR: [{ status }, { status: 'pending', expiresAt: { lte: now } }] }
        : status
          ? { status }
          : {};
  return db.verification.findMany({ where: { orgId, ...rest, ...byStatus, ...where }, ...page });
}

/** Verifications of `mode` since `since` by channel and country, and how many of each were approved. */
export async function countVerificationsByChannelAndCountry(
  db: Db,
  orgId: string,
  mode: string,
  since: Date,
): Promise<{ channelType: string; country: string | null; total: number; approved: number }[]> {
  const rows = await db.verification.groupBy({
    by: ['channelType', 'country'],
    where: { orgId, mode, createdAt: { gte: since } },
    _count: { _all: true, approvedAt: true },
    orderBy: [{ channelType: 'asc' }, { country: 'asc' }],
  });
  return rows.map((row) => ({ channelType: row.channelType, country: row.country, total: row._count._all, approved: row._count.approvedAt }));
}
