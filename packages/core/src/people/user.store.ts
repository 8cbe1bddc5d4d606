import type { Db, Prisma, User as UserRow } from '@tidings/db';

// Any constant: it serialises first sign-ups, so two at once cannot both create an organization.
const FIRST_SIGN_UP_LOCK = 724_311_806;

/** Held until the transaction ends: the first sign-up's check that nobody has an account, and its inserts, run alone. */
export async function lockFirstSignUp(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${FIRST_SIGN_UP_LOCK})`;
}

export function countUsers(db: Db | Prisma.TransactionClient): Promise<number> {
  return db.user.count();
}

/** Inserts a person; the install's first account is its operator (it made the install), so it may open the queues. */
export async function insertUser(tx: Prisma.TransactionClient, row: { id: string; email: string; passwordHash: string | null; name: string | null }): Promise<UserRow> {
  await lockFirstSignUp(tx);
  const isFirst = (await tx.user.count({ take: 1 })) === 0;
  return tx.user.create({ data: { ...row, isInstallOperator: isFirst } });
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  return db.user.findUnique({ where: { email } });
}

/** Whether the address has an account, and whose. */
export function findUserIdByEmail(db: Db, email: string): Promise<{ id: string } | null> {
  return db.user.findUnique({ where: { email }, select: { id: true } });
}

/** What a signed-in request knows of its person. */
export function findSignedInUser(
  db: Db,
  userId: string,
): Promise<{ id: string; email: string; name: string | null; isInstallOperator: boolean; totpEnabledAt: Date | null } | null> {
  return db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, name: true, isInstallOperator: true, totpEnabledAt: true } });
}

export type UserWithMembershipsRow = Prisma.UserGetPayload<{
  include: { memberships: { include: { organization: { select: { name: true; requireTwoFactor: true } } } } };
}>;

/** Every person of the install, or only the members of `filter.orgId`, oldest account first, with their memberships oldest first. */
export function listUsersWithMemberships(db: Db, filter: { orgId?: string }): Promise<UserWithMembershipsRow[]> {
  return db.user.findMany({
    where: filter.orgId ? { memberships: { some: { orgId: filter.orgId } } } : {},
    include: { memberships: { include: { organization: { select: { name: true, requireTwoFactor: true } } }, orderBy: { createdAt: 'asc' } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

export function findUserPasswordHash(db: Db, userId: string): Promise<{ passwordHash: string | null }> {
  return db.user.findUniqueOrThrow({ where: { id: userId }, select: { passwordHash: true } });
}

/** A Prisma promise: it may run alone or in a batch transaction (`db.$transaction([...])`). */
export function updateUserPassword(db: Db | Prisma.TransactionClient, userId: string, passwordHash: string): Prisma.PrismaPromise<UserRow> {
  return db.user.update({ where: { id: userId }, data: { passwordHash } });
}

/** Counts 0 for an unknown email. */
export function updateInstallOperatorByEmail(db: Db, email: string, isInstallOperator: boolean): Promise<Prisma.BatchPayload> {
  return db.user.updateMany({ where: { email }, data: { isInstallOperator } });
}

// ---- The second factor (TOTP and recovery codes), columns of the person's row.

/** Throws (Prisma's not-found) for an unknown person. */
export function findUserTotpEnrolment(db: Db, userId: string): Promise<{ email: string; totpSecretCiphertext: string | null; totpEnabledAt: Date | null }> {
  return db.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, totpSecretCiphertext: true, totpEnabledAt: true } });
}

/** A new secret waiting for its first code: no step of it has been accepted yet. */
export function updatePendingTotpSecret(db: Db, userId: string, totpSecretCiphertext: string): Promise<UserRow> {
  return db.user.update({ where: { id: userId }, data: { totpSecretCiphertext, totpLastStep: null } });
}

/** Throws (Prisma's not-found) for an unknown person. */
export function findUserTotpOrThrow(db: Db, userId: string): Promise<{ totpSecretCiphertext: string | null; totpEnabledAt: Date | null }> {
  return db.user.findUniqueOrThrow({ where: { id: userId }, select: { totpSecretCiphertext: true, totpEnabledAt: true } });
}

export function findUserTotp(db: Db, userId: string): Promise<{ totpSecretCiphertext: string | null; totpEnabledAt: Date | null } | null> {
  return db.user.findUnique({ where: { id: userId }, select: { totpSecretCiphertext: true, totpEnabledAt: true } });
}

/** Turns two-factor on only while it is off (counts 0 otherwise), so two confirmations cannot both hand out codes. */
export function enableUserTwoFactor(
  db: Db | Prisma.TransactionClient,
  userId: string,
  enabled: { totpEnabledAt: Date; totpLastStep: number; recoveryCodeHashes: string[] },
): Promise<Prisma.BatchPayload> {
  return db.user.updateMany({
    where: { id: userId, totpEnabledAt: null },
    data: { totpEnabledAt: enabled.totpEnabledAt, totpLastStep: enabled.totpLastStep, recoveryCodeHashes: enabled.recoveryCodeHashes },
  });
}

/** Accepts a TOTP time step only when it is later than the last one accepted: 1 when claimed, 0 for a replay. */
export function claimTotpStep(db: Db, userId: string, step: number): Promise<number> {
  return db.$executeRaw`UPDATE "User" SET "totpLastStep" = ${step}
      WHERE "id" = ${userId} AND ("totpLastStep" IS NULL OR "totpLastStep" < ${step})`;
}

/** Removes an unused recovery code by its hash: 1 when it was there (now used up), 0 otherwise. */
export function useRecoveryCode(db: Db, userId: string, hash: string): Promise<number> {
  return db.$executeRaw`UPDATE "User" SET "recoveryCodeHashes" = array_remove("recoveryCodeHashes", ${hash})
    WHERE "id" = ${userId} AND ${hash} = ANY("recoveryCodeHashes")`;
}

/** Throws (Prisma's not-found) for an unknown person. */
export function findUserTwoFactorStatus(db: Db, userId: string): Promise<{ totpEnabledAt: Date | null; recoveryCodeHashes: string[] }> {
  return db.user.findUniqueOrThrow({ where: { id: userId }, select: { totpEnabledAt: true, recoveryCodeHashes: true } });
}

/** The secret, recovery codes and replay marker gone. */
export function clearUserTwoFactor(tx: Prisma.TransactionClient, userId: string): Promise<UserRow> {
  return tx.user.update({ where: { id: userId }, data: { totpSecretCiphertext: null, totpEnabledAt: null, totpLastStep: null, recoveryCodeHashes: [] } });
}

/** The person with this email, whether they have two-factor on, and the organizations they belong to. */
export function findUserWithOrgIdsByEmail(db: Db, email: string): Promise<{ id: string; totpEnabledAt: Date | null; memberships: { orgId: string }[] } | null> {
  return db.user.findUnique({
    where: { email },
    select: { id: true, totpEnabledAt: true, memberships: { select: { orgId: true } } },
  });
}
