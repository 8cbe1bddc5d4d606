import type { Db, Membership as MembershipRow, MembershipRole, Prisma } from '@tidings/db';

export type MembershipWithOrganizationRow = MembershipRow & { organization: { name: string; requireTwoFactor: boolean } };
export type MemberRow = MembershipRow & { user: { email: string; name: string | null; totpEnabledAt: Date | null } };

/** The organizations a person belongs to, oldest membership first. */
export function listMembershipsOfUser(db: Pick<Db, 'membership'>, userId: string): Promise<MembershipWithOrganizationRow[]> {
  return db.membership.findMany({
    where: { userId },
    include: { organization: { select: { name: true, requireTwoFactor: true } } },
    orderBy: { createdAt: 'asc' },
  });
}

/** The members of an organization with their accounts, oldest membership first. */
export function listMembersOfOrganization(db: Db, orgId: string): Promise<MemberRow[]> {
  return db.membership.findMany({ where: { orgId }, include: { user: { select: { email: true, name: true, totpEnabledAt: true } } }, orderBy: { createdAt: 'asc' } });
}

/** The membership in the organization of the person with this email, if they have an account and belong to it. */
export function findMembershipByEmail(db: Db, orgId: string, email: string): Promise<MembershipRow | null> {
  return db.membership.findFirst({ where: { orgId, user: { email } } });
}

export function findMembership(tx: Prisma.TransactionClient, orgId: string, userId: string): Promise<MembershipRow | null> {
  return tx.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
}

/** Whether the person belongs to the organization (their id when they do). */
export function findMembershipUserId(db: Db, orgId: string, userId: string): Promise<{ userId: string } | null> {
  return db.membership.findUnique({ where: { orgId_userId: { orgId, userId } }, select: { userId: true } });
}

export function countMembershipsOfOrganization(tx: Prisma.TransactionClient, orgId: string): Promise<number> {
  return tx.membership.count({ where: { orgId } });
}

export function insertMembership(tx: Prisma.TransactionClient, row: { orgId: string; userId: string; role: MembershipRole }): Promise<MembershipRow> {
  return tx.membership.create({ data: row });
}

/** Adds the membership unless the person already belongs to the organization (then it keeps its role). */
export function ensureMembership(tx: Prisma.TransactionClient, row: { orgId: string; userId: string; role: MembershipRole }): Promise<MembershipRow> {
  return tx.membership.upsert({
    where: { orgId_userId: { orgId: row.orgId, userId: row.userId } },
    create: { orgId: row.orgId, userId: row.userId, role: row.role },
    update: {},
  });
}

/** Locks the organization's owners until the transaction ends, so two owners demoting each other at once cannot leave it with none. */
export function lockOrganizationOwners(tx: Prisma.TransactionClient, orgId: string): Promise<{ userId: string }[]> {
  return tx.$queryRaw<{ userId: string }[]>`SELECT "userId" FROM "Membership" WHERE "orgId" = ${orgId} AND role = 'owner' FOR UPDATE`;
}

export function updateMembershipRole(tx: Prisma.TransactionClient, orgId: string, userId: string, role: MembershipRole): Promise<MembershipRow> {
  return tx.membership.update({ where: { orgId_userId: { orgId, userId } }, data: { role } });
}

export function deleteMembership(tx: Prisma.TransactionClient, orgId: string, userId: string): Promise<MembershipRow> {
  return tx.membership.delete({ where: { orgId_userId: { orgId, userId } } });
}
