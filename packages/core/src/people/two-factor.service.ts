import { createHash, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '@tidings/webhooks';
import { Secret, TOTP } from 'otpauth';
import { auditedChange, recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { updateOrganizationRequireTwoFactor } from '../organizations/organization.store.ts';
import { auditInEveryOrganization, selfActor } from './audit-person.ts';
import { findMembershipUserId } from './membership.store.ts';
import { verifyPassword } from './password.ts';
import { parsePersonEmail } from './people.service.ts';
import { deleteSessionsOfUser } from './session.store.ts';
import {
  claimTotpStep,
  clearUserTwoFactor,
  enableUserTwoFactor,
  findUserTotp,
  findUserTotpEnrolment,
  findUserPasswordHash,
  findUserTotpOrThrow,
  findUserTwoFactorStatus,
  findUserWithOrgIdsByEmail,
  updatePendingTotpSecret,
  useRecoveryCode,
} from './user.store.ts';

// RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps; one step either side for clock drift.
const TOTP_SETTINGS = { issuer: 'Tidings', algorithm: 'SHA1', digits: 6, period: 30 } as const;
const DRIFT_STEPS = 1;
/** How many recovery codes a person gets at enrolment (each works once). */
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i to misread

type Db = Pick<Deps, 'db'>;
type DbClockKey = Pick<Deps, 'db' | 'now' | 'config'>;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ ...TOTP_SETTINGS, label, secret: Secret.fromBase32(secretBase32) });
}

function hashRecoveryCode(code: string): string {
  return createHash('sha256')
    .update(code.toLowerCase().replace(/[^a-z0-9]/g, ''))
    .digest('hex');
}

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** What the enrolment page shows: the secret as text and as the `otpauth://` URI its QR code holds. */
export type TwoFactorEnrolment = { secret: string; uri: string };

/**
 * Starts (or continues) enrolment: a new TOTP secret, stored encrypted and not yet in force, or the one already
 * waiting for its first code (a reload shows the same QR code). CONFLICT when two-factor is already on.
 * @example const { secret, uri } = await beginTwoFactorEnrolment(deps, signedIn.user.id);
 */
export async function beginTwoFactorEnrolment({ db, config }: Pick<Deps, 'db' | 'config'>, userId: string): Promise<TwoFactorEnrolment> {
  const user = await findUserTotpEnrolment(db, userId);
  if (user.totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on');
  let secret = user.totpSecretCiphertext ? decryptSecret(user.totpSecretCiphertext, config.webhooks.secretKey) : null;
  if (!secret) {
    secret = new Secret({ size: 20 }).base32;
    await updatePendingTotpSecret(db, userId, encryptSecret(secret, config.webhooks.secretKey));
  }
  return { secret, uri: totpOf(secret, user.email).toString() };
}

/** The time step a code matches (within one step of drift), or null. */
function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const totp = totpOf(secretBase32, 'check');
  const delta = totp.validate({ token, timestamp: now.getTime(), window: DRIFT_STEPS });
  return delta === null ? null : totp.counter({ timestamp: now.getTime() }) + delta;
}

/**
 * Confirms enrolment with a code from the app: two-factor is on from now, and the ten recovery codes (returned once,
 * stored as hashes) replace any earlier ones. BAD_REQUEST for a wrong code; CONFLICT when not enrolling.
 * @example const { recoveryCodes } = await confirmTwoFactorEnrolment(deps, userId, '123456');
 */
export async function confirmTwoFactorEnrolment({ db, now, config, actor }: DbClockKey & Pick<Deps, 'actor'>, userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
  const user = await findUserTotpOrThrow(db, userId);
  if (user.totpEnabledAt || !user.totpSecretCiphertext) throw new AppError('CONFLICT', 'There is no enrolment to confirm: start again');
  const step = matchingStep(decryptSecret(user.totpSecretCiphertext, config.webhooks.secretKey), code, now());
  if (step === null) throw new AppError('BAD_REQUEST', 'code: that code is not right; check the time on your phone and enter the current one');
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.$transaction(async (tx) => {
    const { count } = await enableUserTwoFactor(tx, userId, { totpEnabledAt: now(), totpLastStep: step, recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode) });
    if (count === 0) throw new AppError('CONFLICT', 'Two-factor sign-in is already on');
    await auditInEveryOrganization(tx, actor ?? selfActor(userId), userId, 'member.twoFactorEnabled');
  });
  return { recoveryCodes };
}

/**
 * Checks the second factor of a person who has two-factor on: a current TOTP code whose time step is later than the
 * last one accepted (a code seen once, even within its 30 seconds, is refused), or an unused recovery code (then
 * used up). Each is claimed by one conditional UPDATE, so two requests racing with the same code cannot both pass.
 * @example const used = await verifySecondFactor(deps, userId, form.code); // 'totp' | 'recovery' | null
 */
export async function verifySecondFactor({ db, now, config }: DbClockKey, userId: string, code: string): Promise<'totp' | 'recovery' | null> {
  const user = await findUserTotp(db, userId);
  if (!user?.totpEnabledAt || !user.totpSecretCiphertext) return null;
  const step = matchingStep(decryptSecret(user.totpSecretCiphertext, config.webhooks.secretKey), code, now());
  if (step !== null) {
    const claimed = await claimTotpStep(db, userId, step);
    return claimed === 1 ? 'totp' : null;
  }
  const hash = hashRecoveryCode(code);
  const used = await useRecoveryCode(db, userId, hash);
  return used === 1 ? 'recovery' : null;
}

/**
 * Whether the person has two-factor on, and how many recovery codes they have left.
 * @example const { isEnabled, recoveryCodesLeft } = await twoFactorStatus(deps, userId);
 */
export async function twoFactorStatus({ db }: Db, userId: string): Promise<{ isEnabled: boolean; recoveryCodesLeft: number }> {
  const user = await findUserTwoFactorStatus(db, userId);
  return { isEnabled: user.totpEnabledAt !== null, recoveryCodesLeft: user.recoveryCodeHashes.length };
}

/**
 * Turns the signed-in person's own second factor off, after their password (a session left open is not enough):
 * secret and recovery codes deleted, audited as `member.twoFactorDisabled` in each of their organizations. Their
 * sessions stay. An organization that requires two-factor sign-in asks them to enrol again at their next sign-in.
 * BAD_REQUEST for a wrong password, CONFLICT when it is off.
 * @example await disableOwnTwoFactor(deps, userId, form.password);
 */
export async function disableOwnTwoFactor({ db, actor, config }: Pick<Deps, 'db' | 'actor' | 'config'>, userId: string, password: string): Promise<void> {
  if (!(await verifyPassword(password, (await findUserPasswordHash(db, userId)).passwordHash, config))) throw new AppError('BAD_REQUEST', 'password: that is not your password');
  if (!(await findUserTwoFactorStatus(db, userId)).totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already off');
  await db.$transaction(async (tx) => {
    await clearUserTwoFactor(tx, userId);
    await auditInEveryOrganization(tx, actor ?? selfActor(userId), userId, 'member.twoFactorDisabled');
  });
}

/**
 * Turns a person's second factor off (secret, recovery codes, replay marker) and ends their sessions: used when the
 * phone is lost, so whoever holds it keeps no session either. They enrol again at will, or at their next sign-in when
 * an organization of theirs requires it. Returns how many sessions ended.
 */
async function clearSecondFactor({ db, actor }: Pick<Deps, 'db' | 'actor'>, userId: string, auditedIn: string[]): Promise<number> {
  return db.$transaction(async (tx) => {
    await clearUserTwoFactor(tx, userId);
    const sessions = await deleteSessionsOfUser(tx, userId);
    for (const orgId of auditedIn) await recordAudit(tx, actor, { orgId, action: 'member.twoFactorReset', targetId: userId });
    return sessions.count;
  });
}

/**
 * An owner resets a member's second factor (Settings > Members); NOT_FOUND for someone not in the organization.
 * Who may do this (owners) is the caller's check.
 * @example await resetMemberTwoFactor(deps, orgId, 'usr_01JD...');
 */
export async function resetMemberTwoFactor(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, userId: string): Promise<void> {
  const member = await findMembershipUserId(deps.db, orgId, userId);
  if (!member) throw new AppError('NOT_FOUND', 'Member not found');
  await clearSecondFactor(deps, userId, [orgId]);
}

/**
 * The operator resets a person's second factor (`tidings users reset-2fa`); NOT_FOUND for an unknown email.
 * @example const { signedOut } = await resetTwoFactorByEmail(deps, 'ana@example.com');
 */
export async function resetTwoFactorByEmail(deps: Pick<Deps, 'db' | 'actor'>, email: string): Promise<{ userId: string; wasEnabled: boolean; signedOut: number }> {
  const user = await findUserWithOrgIdsByEmail(deps.db, parsePersonEmail(email));
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  // the person is a member of each of these organizations: each one's audit log shows the reset
  const signedOut = await clearSecondFactor(
    deps,
    user.id,
    user.memberships.map((m) => m.orgId),
  );
  return { userId: user.id, wasEnabled: user.totpEnabledAt !== null, signedOut };
}

/**
 * Turns "every member signs in with a second factor" on or off for an organization (owners only: the caller's check).
 * @example await setOrganizationRequiresTwoFactor(deps, orgId, true);
 */
export async function setOrganizationRequiresTwoFactor(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, isRequired: boolean): Promise<void> {
  await auditedChange(deps, { orgId, action: 'organization.updated', targetId: orgId }, (tx) => updateOrganizationRequireTwoFactor(tx, orgId, isRequired));
}
