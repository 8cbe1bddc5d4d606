import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { listMemberships, type Membership, type User } from './people.service.ts';
import { deletePasswordResetsExpiredBy } from './password-reset.store.ts';
import { deleteSessionByTokenHash, deleteSessionById, deleteSessionsExpiredBy, findSessionByTokenHash, insertSession, updateSessionOrg } from './session.store.ts';
import { findSignedInUser } from './user.store.ts';

/** How long a dashboard session lasts after sign-in. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** What a signed-in request knows: the person, their organizations and the one they are looking at. */
export type SignedIn = {
  sessionId: string;
  user: Pick<User, 'id' | 'email' | 'name'>;
  memberships: Membership[];
  /** The current organization; always one of `memberships`. */
  membership: Membership;
  /** Granted by `tidings users grant-operator` only: sees the queues every organization shares. */
  isInstallOperator: boolean;
  /** Whether the person signs in with a second factor. */
  hasTwoFactor: boolean;
};

/**
 * The SHA-256 of a session token, hex: the only form in which tokens are stored.
 * @example const session = await findSessionByTokenHash(db, hashSessionToken(token));
 */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Starts a session for a person in one of their organizations (the first when none is asked for). The token is for
 * the cookie only; the database keeps its hash.
 * @example const { token } = await createSession(deps, user.id);
 */
export async function createSession({ db, now }: Pick<Deps, 'db' | 'now'>, userId: string, orgId?: string): Promise<{ token: string; expiresAt: Date }> {
  const memberships = await listMemberships(db, userId);
  const membership = memberships.find((m) => m.orgId === orgId) ?? memberships[0];
  if (!membership) throw new AppError('FORBIDDEN', 'This account does not belong to any organization');
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now().getTime() + SESSION_TTL_MS);
  await insertSession(db, { id: newId('ses'), tokenHash: hashSessionToken(token), userId, orgId: membership.orgId, expiresAt });
  return { token, expiresAt };
}

/**
 * The signed-in person for a cookie's token, or null when the token is unknown or expired, or the person no longer
 * belongs to any organization. A session whose organization was left moves to another membership.
 * @example const signedIn = token ? await findSession(deps, token) : null;
 */
export async function findSession({ db, now }: Pick<Deps, 'db' | 'now'>, token: string): Promise<SignedIn | null> {
  const session = await findSessionByTokenHash(db, hashSessionToken(token));
  if (!session) return null;
  if (session.expiresAt <= now()) {
    await deleteSessionById(db, session.id);
    return null;
  }
  const [user, memberships] = await Promise.all([findSignedInUser(db, session.userId), listMemberships(db, session.userId)]);
  if (!user || memberships.length === 0) return null;
  let membership = memberships.find((m) => m.orgId === session.orgId);
  if (!membership) {
    membership = memberships[0]!;
    await updateSessionOrg(db, session.id, membership.orgId);
  }
  const { isInstallOperator, totpEnabledAt, ...person } = user;
  return { sessionId: session.id, user: person, memberships, membership, isInstallOperator, hasTwoFactor: totpEnabledAt !== null };
}

/**
 * Moves a session to another of the person's organizations; NOT_FOUND for one they do not belong to.
 * @example await switchSessionOrg(deps, signedIn, form.orgId);
 */
export async function switchSessionOrg({ db }: Pick<Deps, 'db'>, signedIn: SignedIn, orgId: string): Promise<void> {
  if (!signedIn.memberships.some((m) => m.orgId === orgId)) throw new AppError('NOT_FOUND', 'Organization not found');
  await updateSessionOrg(db, signedIn.sessionId, orgId);
}

/**
 * Ends the session of this token (sign-out); a token that is already gone is fine.
 * @example await deleteSession(deps, getCookie(c, 'tidings_session'));
 */
export async function deleteSession({ db }: Pick<Deps, 'db'>, token: string): Promise<void> {
  await deleteSessionByTokenHash(db, hashSessionToken(token));
}

/**
 * Removes expired sessions, and password reset links past their hour (used or not), for a periodic clean-up; returns
 * how many sessions.
 * @example const removed = await deleteExpiredSessions(deps);
 */
export async function deleteExpiredSessions({ db, now }: Pick<Deps, 'db' | 'now'>): Promise<number> {
  const [{ count }] = await db.$transaction([deleteSessionsExpiredBy(db, now()), deletePasswordResetsExpiredBy(db, now())]);
  return count;
}
