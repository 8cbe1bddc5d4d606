import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { deleteMembership, findMembership, lockOrganizationOwners, updateMembershipRole } from './membership.store.ts';
import type { Role } from './people.service.ts';

const ROLES: readonly Role[] = ['owner', 'operator', 'member'];

/**
 * Runs a change to one membership of the organization with its owners locked, so two owners demoting each other
 * at once cannot leave it with none. NOT_FOUND for a person who is not a member (another organization's);
 * CONFLICT when the change would leave no owner.
 */
async function changeMembership({ db, actor }: Pick<Deps, 'db' | 'actor'>, orgId: string, userId: string, change: { role: Role } | 'remove'): Promise<void> {
  await db.$transaction(async (tx) => {
    const owners = await lockOrganizationOwners(tx, orgId);
    const membership = await findMembership(tx, orgId, userId);
    if (!membership) throw new AppError('NOT_FOUND', 'Member not found');
    const staysOwner = change !== 'remove' && change.role === 'owner';
    if (membership.role === 'owner' && !staysOwner && owners.length <= 1) {
      throw new AppError('CONFLICT', 'The last owner cannot be removed or demoted: make someone else an owner first');
    }
    if (change === 'remove') {
      await deleteMembership(tx, orgId, userId);
      // their sessions in this organization move on (findSession) or end with their last membership
    } else {
      await updateMembershipRole(tx, orgId, userId, change.role);
    }
    await recordAudit(tx, actor, { orgId, action: change === 'remove' ? 'member.removed' : 'member.roleChanged', targetId: userId });
  });
}

/**
 * Gives a member of the organization another role; BAD_REQUEST for an unknown role, NOT_FOUND for someone else's
 * member, CONFLICT for demoting the last owner. Who may do this (owners) is the caller's check.
 * @example await changeMemberRole(deps, orgId, 'usr_01JD...', 'operator');
 */
export async function changeMemberRole(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, userId: string, role: string): Promise<void> {
  if (!ROLES.includes(role as Role)) throw new AppError('BAD_REQUEST', `role: must be one of ${ROLES.join(', ')}`);
  await changeMembership(deps, orgId, userId, { role: role as Role });
}

/**
 * Removes a person from the organization (their account stays, with any other memberships); NOT_FOUND for someone
 * else's member, CONFLICT for the last owner.
 * @example await removeMember(deps, orgId, 'usr_01JD...');
 */
export async function removeMember(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, userId: string): Promise<void> {
  await changeMembership(deps, orgId, userId, 'remove');
}
