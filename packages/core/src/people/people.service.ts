import type { Db } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import {
  findOrganization,
  findOrganizationId,
  insertOrganization,
  listUpToTwoOrganizationIds,
  listUpToTwoOrganizations,
  lockOrganization,
} from '../organizations/organization.store.ts';
import { countMembershipsOfOrganization, findMembership, insertMembership, listMembershipsOfUser } from './membership.store.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { deleteSessionsOfUser, deleteSessionsOfUserExcept } from './session.store.ts';
import { countUsers, findUserByEmail, findUserPasswordHash, insertUser, listUsersWithMemberships, lockFirstSignUp, updateUserPassword } from './user.store.ts';

export type Role = 'owner' | 'operator' | 'member';
export type User = { id: string; email: string; name: string | null; createdAt: string };
/** `requiresTwoFactor`: the organization's owner requires a second factor of every member. */
export type Membership = { orgId: string; orgName: string; role: Role; requiresTwoFactor: boolean };

export const PASSWORD_MIN_LENGTH = 10;
const PASSWORD_MAX_LENGTH = 200;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function toUser(row: { id: string; email: string; name: string | null; createdAt: Date }): User {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.createdAt.toISOString() };
}

/**
 * Lower-cases and trims an email, or throws BAD_REQUEST naming the field.
 * @example parsePersonEmail(' Ana@Example.com ') // 'ana@example.com'
 */
export function parsePersonEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(normalized) || normalized.length > 254) throw new AppError('BAD_REQUEST', 'email: must be a valid email address');
  return normalized;
}

/** Throws BAD_REQUEST naming `password` when it is too short or too long. */
export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new AppError('BAD_REQUEST', `password: must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw new AppError('BAD_REQUEST', `password: must be at most ${PASSWORD_MAX_LENGTH} characters`);
}

/**
 * True while nobody has an account: the next sign-up creates the organization and its owner.
 * @example if (await isSignUpOpen(deps)) return c.redirect('/sign-up');
 */
export async function isSignUpOpen({ db }: Pick<Deps, 'db'>): Promise<boolean> {
  return (await countUsers(db)) === 0;
}

/**
 * The organization the first sign-up joins instead of creating one: the only organization of an install where
 * nobody has an account yet (made with `tidings orgs create`), or null.
 * @example const joining = await organizationForFirstSignUp(deps); // { id: 'org_...', name: 'Acme' } | null
 */
export async function organizationForFirstSignUp({ db }: Pick<Deps, 'db'>): Promise<{ id: string; name: string } | null> {
  const [users, orgs] = await Promise.all([countUsers(db), listUpToTwoOrganizations(db)]);
  return users === 0 && orgs.length === 1 ? orgs[0]! : null;
}

/**
 * The first sign-up of an install, in one transaction: the person becomes the owner of the install's only
 * organization when there is exactly one (the CLI made it: its keys and messages are then in the dashboard too),
 * else of a new organization named `organizationName`. Refused (FORBIDDEN) once anyone has an account; later people
 * are added by invitation or `tidings users create`.
 * @example const { user, orgId } = await signUpFirstOwner(deps, { email, password, organizationName: 'Acme' });
 */
export async function signUpFirstOwner(
  { db, config }: Pick<Deps, 'db' | 'config'>,
  input: { email: string; password: string; organizationName: string; name?: string },
): Promise<{ user: User; orgId: string; joinedExisting: boolean }> {
  const email = parsePersonEmail(input.email);
  checkPassword(input.password);
  const organizationName = input.organizationName.trim();
  const passwordHash = await hashPassword(input.password, config);
  return db.$transaction(async (tx) => {
    await lockFirstSignUp(tx);
    if ((await countUsers(tx)) > 0) throw new AppError('FORBIDDEN', 'Sign-up is closed: ask an owner to add you');
    const orgs = await listUpToTwoOrganizationIds(tx);
    const existing = orgs.length === 1 ? orgs[0]! : null;
    if (!existing && (!organizationName || organizationName.length > 100)) throw new AppError('BAD_REQUEST', 'organizationName: must be 1 to 100 characters');
    const org = existing ?? (await insertOrganization(tx, { id: newId('org'), name: organizationName }));
    const user = await insertUser(tx, { id: newId('usr'), email, passwordHash, name: input.name?.trim() || null });
    await insertMembership(tx, { orgId: org.id, userId: user.id, role: 'owner' });
    return { user: toUser(user), orgId: org.id, joinedExisting: existing !== null };
  });
}

/**
 * Adds a person to an organization (the operator's `tidings users create`). A new email gets an account with
 * `password`; an existing one just gains the membership. Without a `role`, the first person of an organization
 * nobody belongs to yet (one made by `tidings orgs create`) becomes its owner, anyone later a member. CONFLICT when
 * already a member.
 * @example await createUser(deps, { orgId, email: 'ana@example.com', password: 'a long password', role: 'operator' });
 */
export async function createUser(
  { db, config }: Pick<Deps, 'db' | 'config'>,
  input: { orgId: string; email: string; password: string; role?: Role; name?: string },
): Promise<{ user: User; membership: Membership; isNewUser: boolean }> {
  const email = parsePersonEmail(input.email);
  const org = await findOrganization(db, input.orgId);
  if (!org) throw new AppError('NOT_FOUND', 'Organization not found');
  const existing = await findUserByEmail(db, email);
  if (!existing) checkPassword(input.password);
  const passwordHash = existing ? null : await hashPassword(input.password, config);
  return db.$transaction(async (tx) => {
    // serialises additions to this organization, so two first people cannot both become its owner by default
    await lockOrganization(tx, org.id);
    const user = existing ?? (await insertUser(tx, { id: newId('usr'), email, passwordHash, name: input.name?.trim() || null }));
    const member = await findMembership(tx, org.id, user.id);
    if (member) throw new AppError('CONFLICT', `${email} is already a member of ${org.name}`);
    const role = input.role ?? ((await countMembershipsOfOrganization(tx, org.id)) === 0 ? 'owner' : 'member');
    await insertMembership(tx, { orgId: org.id, userId: user.id, role });
    return { user: toUser(user), membership: { orgId: org.id, orgName: org.name, role, requiresTwoFactor: org.requireTwoFactor }, isNewUser: !existing };
  });
}

/**
 * The person with this email and password, or null (the same answer, and time, for an unknown email).
 * @example const user = await verifyCredentials(deps, form.email, form.password);
 */
export async function verifyCredentials({ db, config }: Pick<Deps, 'db' | 'config'>, email: string, password: string): Promise<User | null> {
  const row = await findUserByEmail(db, email.trim().toLowerCase());
  const isMatch = await verifyPassword(password, row?.passwordHash, config);
  return row && isMatch ? toUser(row) : null;
}

/**
 * The organizations a person belongs to, by name, oldest membership first.
 * @example const memberships = await listMemberships(deps.db, user.id);
 */
export async function listMemberships(db: Pick<Db, 'membership'>, userId: string): Promise<Membership[]> {
  const rows = await listMembershipsOfUser(db, userId);
  return rows.map((row) => ({ orgId: row.orgId, orgName: row.organization.name, role: row.role, requiresTwoFactor: row.organization.requireTwoFactor }));
}

/** A person as the operator sees them (`tidings users list`): their organizations and roles. */
export type UserWithMemberships = User & { memberships: Membership[] };

/**
 * Every person of the install, or only the members of `orgId`, oldest account first, each with their memberships.
 * NOT_FOUND for an unknown organization.
 * @example const people = await listUsers(deps, { orgId: 'org_01JD8Z5Q9X4N7W2M3K6P0R1T5V' });
 */
export async function listUsers({ db }: Pick<Deps, 'db'>, filter: { orgId?: string } = {}): Promise<UserWithMemberships[]> {
  if (filter.orgId && !(await findOrganizationId(db, filter.orgId))) {
    throw new AppError('NOT_FOUND', 'Organization not found');
  }
  const rows = await listUsersWithMemberships(db, filter);
  return rows.map((row) => ({
    ...toUser(row),
    memberships: row.memberships.map((m) => ({ orgId: m.orgId, orgName: m.organization.name, role: m.role, requiresTwoFactor: m.organization.requireTwoFactor })),
  }));
}

/**
 * Sets a person's password (`tidings users reset-password`) and signs them out everywhere: a reset is often because
 * the old one leaked, so no session made with it survives. NOT_FOUND for an unknown email.
 * @example const { signedOut } = await resetPassword(deps, 'ana@example.com', 'a new long password');
 */
export async function resetPassword({ db, config }: Pick<Deps, 'db' | 'config'>, email: string, password: string): Promise<{ user: User; signedOut: number }> {
  checkPassword(password);
  const row = await findUserByEmail(db, parsePersonEmail(email));
  if (!row) throw new AppError('NOT_FOUND', 'User not found');
  const passwordHash = await hashPassword(password, config);
  const [user, sessions] = await db.$transaction([updateUserPassword(db, row.id, passwordHash), deleteSessionsOfUser(db, row.id)]);
  return { user: toUser(user), signedOut: sessions.count };
}

/**
 * A signed-in person changes their password: the current one must match (BAD_REQUEST naming `currentPassword`
 * otherwise), and every other session of theirs ends (the one they are using, `keepSessionId`, stays).
 * @example const { signedOut } = await changePassword(deps, signedIn.user.id, { currentPassword, password, keepSessionId: signedIn.sessionId });
 */
export async function changePassword(
  { db, config }: Pick<Deps, 'db' | 'config'>,
  userId: string,
  { currentPassword, password, keepSessionId }: { currentPassword: string; password: string; keepSessionId: string },
): Promise<{ signedOut: number }> {
  const row = await findUserPasswordHash(db, userId);
  if (!(await verifyPassword(currentPassword, row.passwordHash, config))) throw new AppError('BAD_REQUEST', 'currentPassword: is not your current password');
  checkPassword(password);
  const passwordHash = await hashPassword(password, config);
  const [, sessions] = await db.$transaction([updateUserPassword(db, userId, passwordHash), deleteSessionsOfUserExcept(db, userId, keepSessionId)]);
  return { signedOut: sessions.count };
}
