import type { Db, PasswordReset as PasswordResetRow, Prisma } from '@tidings/db';

export function insertPasswordReset(db: Db, row: { id: string; tokenHash: string; userId: string; expiresAt: Date }): Promise<PasswordResetRow> {
  return db.passwordReset.create({ data: row });
}

/** The address of the person a reset is for. */
export function findPasswordResetEmail(db: Db, id: string): Promise<{ user: { email: string } } | null> {
  return db.passwordReset.findUnique({ where: { id }, select: { user: { select: { email: true } } } });
}

/** Whether a reset has been used, and until when it works. */
export function findPasswordResetValidity(db: Db, tokenHash: string): Promise<{ usedAt: Date | null; expiresAt: Date } | null> {
  return db.passwordReset.findUnique({ where: { tokenHash }, select: { usedAt: true, expiresAt: true } });
}

/** The reset of a token and the person it is for. */
export function findPasswordResetByTokenHash(tx: Prisma.TransactionClient, tokenHash: string): Promise<{ id: string; userId: string } | null> {
  return tx.passwordReset.findUnique({ where: { tokenHash }, select: { id: true, userId: true } });
}

/** Uses a reset once, while it is unused and unexpired at `at` (a conditional update): counts 0 when it cannot be claimed. */
export function claimPasswordReset(tx: Prisma.TransactionClient, id: string, at: Date): Promise<Prisma.BatchPayload> {
  return tx.passwordReset.updateMany({ where: { id, usedAt: null, expiresAt: { gt: at } }, data: { usedAt: at } });
}

/** Marks every unused reset of the person used: a new password spends their other links. */
export function spendOpenPasswordResetsOfUser(tx: Prisma.TransactionClient, userId: string, at: Date): Promise<Prisma.BatchPayload> {
  return tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: at } });
}

/** Resets past their hour, used or not. A Prisma promise, for a batch transaction. */
export function deletePasswordResetsExpiredBy(db: Db, now: Date): Prisma.PrismaPromise<Prisma.BatchPayload> {
  return db.passwordReset.deleteMany({ where: { expiresAt: { lte: now } } });
}
