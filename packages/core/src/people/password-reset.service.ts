import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { sendMessages } from '../messages/send-messages.ts';
import { checkPassword, listMemberships, parsePersonEmail } from './people.service.ts';
import { hashPassword } from './password.ts';

/** How long a "forgot password" link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

function hashResetToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The organization whose send path carries a person's reset email, and in which mode: their oldest membership (the
 * organization they first joined; a person in several gets one email, from one of them). `test` (the sandbox) while
 * the install sends email through the sandbox only, or the organization is one made for testing; else `live`, through
 * the organization's own provider and default sender. Null for a person in no organization (who cannot sign in).
 */
async function senderOf(deps: Deps, userId: string): Promise<{ orgId: string; mode: 'live' | 'test' } | null> {
  const [membership] = await listMemberships(deps.db, userId);
  if (!membership) return null;
  const isSandboxOnly = deps.config.providerLists.email.every((name) => name === 'sandbox');
  const org = await deps.db.organization.findUnique({ where: { id: membership.orgId }, select: { liveKeysAllowed: true } });
  return { orgId: membership.orgId, mode: isSandboxOnly || !org?.liveKeysAllowed ? 'test' : 'live' };
}

/**
 * "Forgot password": when the address belongs to someone, stores a one-use token (its hash only) valid
 * {@link PASSWORD_RESET_TTL_MS} and emails them `linkFor(token)` through Tidings' own send path (see `senderOf`).
 * Says nothing either way, so a caller's answer cannot reveal which addresses have accounts; a send the organization
 * cannot make (a live organization without a default sender) is logged, without the link.
 * @example await requestPasswordReset(deps, form.email, (token) => `${dashboardUrl}/reset-password/${token}`);
 */
export async function requestPasswordReset(deps: Deps, email: string, linkFor: (token: string) => string): Promise<void> {
  let address: string;
  try {
    address = parsePersonEmail(email);
  } catch {
    return; // not an address: nobody to write to
  }
  const user = await deps.db.user.findUnique({ where: { email: address }, select: { id: true } });
  if (!user) return;
  const sender = await senderOf(deps, user.id);
  if (!sender) return;
  const token = randomBytes(32).toString('base64url');
  await deps.db.passwordReset.create({
    data: { id: newId('pwr'), tokenHash: hashResetToken(token), userId: user.id, expiresAt: new Date(deps.now().getTime() + PASSWORD_RESET_TTL_MS) },
  });
  const link = linkFor(token);
  const shown = address.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const { errors } = await sendMessages(deps, sender.orgId, sender.mode, [
    {
      channelType: 'email',
      to: address,
      subject: 'Reset your Tidings password',
      text: `Someone asked to reset the password of ${address} on Tidings. To choose a new one, open this link within an hour:\n\n${link}\n\nIt works once. If it was not you, ignore this email: your password stays as it is.`,
      html: `<p>Someone asked to reset the password of ${shown} on Tidings. To choose a new one, open this link within an hour:</p><p><a href="${link}">Choose a new password</a></p><p>It works once. If it was not you, ignore this email: your password stays as it is.</p>`,
      tags: ['tidings-password-reset'],
    },
  ]);
  if (errors.length > 0) {
    deps.logger.warn({ orgId: sender.orgId, userId: user.id, reason: errors[0]!.message }, 'password reset email not sent');
  }
}

/**
 * Whether a reset link's token is still good (the page that asks for the new password shows it only then).
 * @example if (!(await isPasswordResetUsable(deps, token))) return linkRefusedPage(c);
 */
export async function isPasswordResetUsable({ db, now }: Pick<Deps, 'db' | 'now'>, token: string): Promise<boolean> {
  const reset = await db.passwordReset.findUnique({ where: { tokenHash: hashResetToken(token) }, select: { usedAt: true, expiresAt: true } });
  return !!reset && reset.usedAt === null && reset.expiresAt > now();
}

/**
 * Sets a new password through a reset link: claims the link (once: a conditional update), changes the password,
 * spends every other open link of the person and ends all their sessions, in one transaction. NOT_FOUND for a link
 * that is unknown, used or expired; BAD_REQUEST for a password too short or long (the link stays usable).
 * @example const { userId } = await resetPasswordWithToken(deps, token, form.password);
 */
export async function resetPasswordWithToken({ db, now }: Pick<Deps, 'db' | 'now'>, token: string, password: string): Promise<{ userId: string; signedOut: number }> {
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  return db.$transaction(async (tx) => {
    const at = now();
    const reset = await tx.passwordReset.findUnique({ where: { tokenHash: hashResetToken(token) }, select: { id: true, userId: true } });
    const claimed = reset ? await tx.passwordReset.updateMany({ where: { id: reset.id, usedAt: null, expiresAt: { gt: at } }, data: { usedAt: at } }) : { count: 0 };
    if (!reset || claimed.count === 0) throw new AppError('NOT_FOUND', 'This link has been used or has expired');
    await tx.user.update({ where: { id: reset.userId }, data: { passwordHash } });
    await tx.passwordReset.updateMany({ where: { userId: reset.userId, usedAt: null }, data: { usedAt: at } });
    const { count } = await tx.session.deleteMany({ where: { userId: reset.userId } });
    return { userId: reset.userId, signedOut: count };
  });
}
