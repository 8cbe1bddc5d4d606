import type { AuditAction } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import { recordAudit, type AuditActor } from '../audit/audit-log.ts';
import { listMembershipsOfUser } from './membership.store.ts';

/** A person acting on their own account where no session names them (a reset link). */
export const selfActor = (userId: string): AuditActor => ({ type: 'user', id: userId, ip: null, mode: 'live' });

/**
 * Audits a change to a person's own account in each organization they belong to (an account is not one
 * organization's, and each one's owners see who changed their sign-in), in the change's transaction.
 * @example await auditInEveryOrganization(tx, actor, userId, 'member.twoFactorEnabled');
 */
export async function auditInEveryOrganization(tx: Prisma.TransactionClient, actor: AuditActor, userId: string, action: AuditAction): Promise<void> {
  for (const { orgId } of await listMembershipsOfUser(tx, userId)) await recordAudit(tx, actor, { orgId, action, targetId: userId });
}
