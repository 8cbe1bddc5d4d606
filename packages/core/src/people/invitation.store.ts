import type { Db, Invitation as InvitationRow, MembershipRole, Prisma } from '@tidings/db';

export function insertInvitation(
  tx: Prisma.TransactionClient,
  row: { id: string; orgId: string; email: string; role: MembershipRole; tokenHash: string; invitedByUserId: string; expiresAt: Date },
): Promise<InvitationRow> {
  return tx.invitation.create({ data: row });
}

/** The organization's invitations not accepted, revoked or expired at `now`, newest first. */
export function listOpenInvitations(db: Db, orgId: string, now: Date): Promise<InvitationRow[]> {
  return db.invitation.findMany({ where: { orgId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } }, orderBy: { createdAt: 'desc' } });
}

/** Revokes the invitation while it is open and the organization's: counts 0 otherwise. */
export function revokeOpenInvitation(tx: Prisma.TransactionClient, orgId: string, id: string, at: Date): Promise<Prisma.BatchPayload> {
  return tx.invitation.updateMany({ where: { id, orgId, acceptedAt: null, revokedAt: null }, data: { revokedAt: at } });
}

export function findInvitationByTokenHash(db: Db, tokenHash: string): Promise<InvitationRow | null> {
  return db.invitation.findUnique({ where: { tokenHash } });
}

/** Marks the invitation accepted while it is neither accepted nor revoked: counts 0 when another acceptance or a revocation came first. */
export function claimInvitation(tx: Prisma.TransactionClient, id: string, at: Date): Promise<Prisma.BatchPayload> {
  return tx.invitation.updateMany({ where: { id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: at } });
}
