import { randomBytes } from 'node:crypto';
import { auditedChange, recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { findOrganizationName } from '../organizations/organization.store.ts';
import { claimInvitation, findInvitationByTokenHash, insertInvitation, listOpenInvitations, revokeOpenInvitation } from './invitation.store.ts';
import { ensureMembership, findMembershipByEmail, listMembersOfOrganization } from './membership.store.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { parsePersonEmail, PASSWORD_MIN_LENGTH, type Role, type User } from './people.service.ts';
import { hashSessionToken } from './sessions.service.ts';
import { findUserByEmail, findUserIdByEmail, insertUser } from './user.store.ts';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type Invitation = { id: string; orgId: string; email: string; role: Role; expiresAt: string; createdAt: string };
/** `hasTwoFactor`: signs in with a second factor (an owner may reset it). */
export type Member = { userId: string; email: string; name: string | null; role: Role; joinedAt: string; hasTwoFactor: boolean };

type InvitationRow = { id: string; orgId: string; email: string; role: Role; expiresAt: Date; createdAt: Date };

function toInvitation(row: InvitationRow): Invitation {
  return { id: row.id, orgId: row.orgId, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString(), createdAt: row.createdAt.toISOString() };
}

/**
 * Invites an email address into the organization. The token (for the link) exists only in the result; the database
 * keeps its hash. CONFLICT when the address already belongs to a member.
 * @example const { invitation, token } = await createInvitation(deps, orgId, { email, role: 'member', invitedByUserId });
 */
export async function createInvitation(
  deps: Pick<Deps, 'db' | 'now' | 'actor'>,
  orgId: string,
  input: { email: string; role: Role; invitedByUserId: string },
): Promise<{ invitation: Invitation; token: string }> {
  const { db, now } = deps;
  const email = parsePersonEmail(input.email);
  const member = await findMembershipByEmail(db, orgId, email);
  if (member) throw new AppError('CONFLICT', `email: ${email} is already a member`);
  const token = randomBytes(32).toString('base64url');
  const id = newId('inv');
  const row = await auditedChange(deps, { orgId, action: 'invitation.created', targetId: id }, (tx) =>
    insertInvitation(tx, {
      id,
      orgId,
      email,
      role: input.role,
      tokenHash: hashSessionToken(token),
      invitedByUserId: input.invitedByUserId,
      expiresAt: new Date(now().getTime() + INVITATION_TTL_MS),
    }),
  );
  return { invitation: toInvitation(row), token };
}

/**
 * The organization's members and its open invitations (not accepted, revoked or expired).
 * @example const { members, invitations } = await listMembers(deps, orgId);
 */
export async function listMembers({ db, now }: Pick<Deps, 'db' | 'now'>, orgId: string): Promise<{ members: Member[]; invitations: Invitation[] }> {
  const [memberships, invitations] = await Promise.all([listMembersOfOrganization(db, orgId), listOpenInvitations(db, orgId, now())]);
  return {
    members: memberships.map((m) => ({
      userId: m.userId,
      email: m.user.email,
      name: m.user.name,
      role: m.role,
      joinedAt: m.createdAt.toISOString(),
      hasTwoFactor: m.user.totpEnabledAt !== null,
    })),
    invitations: invitations.map(toInvitation),
  };
}

/**
 * Withdraws an open invitation of the organization; NOT_FOUND for another organization's.
 * @example await revokeInvitation(deps, orgId, 'inv_01JD...');
 */
export async function revokeInvitation(deps: Pick<Deps, 'db' | 'now' | 'actor'>, orgId: string, id: string): Promise<void> {
  await auditedChange(deps, { orgId, action: 'invitation.revoked', targetId: id }, async (tx) => {
    const { count } = await revokeOpenInvitation(tx, orgId, id, deps.now());
    if (count === 0) throw new AppError('NOT_FOUND', 'Invitation not found');
  });
}

/**
 * The open invitation behind a link's token, with its organization's name and whether the address has an account
 * already; NOT_FOUND when unknown, used, revoked or expired.
 * @example const invitation = await findInvitation(deps, c.req.param('token'));
 */
export async function findInvitation({ db, now }: Pick<Deps, 'db' | 'now'>, token: string): Promise<Invitation & { orgName: string; hasAccount: boolean }> {
  const row = await findInvitationByTokenHash(db, hashSessionToken(token));
  if (!row || row.acceptedAt || row.revokedAt || row.expiresAt <= now()) throw new AppError('NOT_FOUND', 'Invitation not found or no longer valid');
  const [org, user] = await Promise.all([findOrganizationName(db, row.orgId), findUserIdByEmail(db, row.email)]);
  if (!org) throw new AppError('NOT_FOUND', 'Invitation not found or no longer valid');
  return { ...toInvitation(row), orgName: org.name, hasAccount: !!user };
}

/**
 * Accepts an invitation: a new address gets an account with `password`; an existing account proves itself with its
 * password. Either way it joins the organization with the invited role, once.
 * @example const user = await acceptInvitation(deps, token, { password: form.password, name: form.name });
 */
export async function acceptInvitation(deps: Pick<Deps, 'db' | 'now' | 'actor' | 'config'>, token: string, input: { password: string; name?: string }): Promise<User> {
  const invitation = await findInvitation(deps, token);
  const { db, now } = deps;
  const existing = await findUserByEmail(db, invitation.email);
  if (existing && !(await verifyPassword(input.password, existing.passwordHash, deps.config))) throw new AppError('UNAUTHORIZED', 'password: is not the password of this account');
  if (!existing && input.password.length < PASSWORD_MIN_LENGTH) throw new AppError('BAD_REQUEST', `password: must be at least ${PASSWORD_MIN_LENGTH} characters`);
  const passwordHash = existing ? null : await hashPassword(input.password, deps.config);
  return db.$transaction(async (tx) => {
    // claiming the invitation first makes a second, simultaneous acceptance find nothing to claim
    const { count } = await claimInvitation(tx, invitation.id, now());
    if (count === 0) throw new AppError('NOT_FOUND', 'Invitation not found or no longer valid');
    const user = existing ?? (await insertUser(tx, { id: newId('usr'), email: invitation.email, passwordHash, name: input.name?.trim() || null }));
    await ensureMembership(tx, { orgId: invitation.orgId, userId: user.id, role: invitation.role });
    // the person joining is the actor (the visitor's address is the request's)
    const joiner = deps.actor && { ...deps.actor, type: 'user' as const, id: user.id };
    await recordAudit(tx, joiner, { orgId: invitation.orgId, action: 'invitation.accepted', targetId: invitation.id });
    return { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt.toISOString() };
  });
}
