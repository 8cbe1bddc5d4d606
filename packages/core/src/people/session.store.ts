import type { Db, Prisma, Session as SessionRow } from '@tidings/db';

export function insertSession(db: Db, row: { id: string; tokenHash: string; userId: string; orgId: string; expiresAt: Date }): Promise<SessionRow> {
  return db.session.create({ data: row });
}

export function findSessionByTokenHash(db: Db, tokenHash: string): Promise<SessionRow | null> {
  return db.session.findUnique({ where: { tokenHash } });
}

/** A session already gone (a sign-out at the same moment) is fine. */
export function deleteSessionById(db: Db, id: string): Promise<Prisma.BatchPayload> {
  return db.session.deleteMany({ where: { id } });
}

/** A token already gone is fine. */
export function deleteSessionByTokenHash(db: Db, tokenHash: string): Promise<Prisma.BatchPayload> {
  return db.session.deleteMany({ where: { tokenHash } });
}

export function updateSessionOrg(db: Db, id: string, orgId: string): Promise<SessionRow> {
  return db.session.update({ where: { id }, data: { orgId } });
}

/** Signs the person out everywhere. A Prisma promise: it may run alone or in a batch transaction (`db.$transaction([...])`). */
export function deleteSessionsOfUser(db: Db | Prisma.TransactionClient, userId: string): Prisma.PrismaPromise<Prisma.BatchPayload> {
  return db.session.deleteMany({ where: { userId } });
}

/** Signs the person out everywhere but `keepSessionId`. A Prisma promise, for a batch transaction. */
export function deleteSessionsOfUserExcept(db: Db, userId: string, keepSessionId: string): Prisma.PrismaPromise<Prisma.BatchPayload> {
  return db.session.deleteMany({ where: { userId, id: { not: keepSessionId } } });
}

/** A Prisma promise, for a batch transaction. */
export function deleteSessionsExpiredBy(db: Db, now: Date): Prisma.PrismaPromise<Prisma.BatchPayload> {
  return db.session.deleteMany({ where: { expiresAt: { lte: now } } });
}
