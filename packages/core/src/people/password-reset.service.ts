import { createHash, createHmac } from 'node:crypto';
import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import type { OutgoingTransform } from '../messages/outgoing-message.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { sendMessages } from '../messages/send-messages.ts';
import { findOrganizationLiveKeysAllowed } from '../organizations/organization.store.ts';
import { checkPassword, listMemberships, parsePersonEmail } from './people.service.ts';
import { hashPassword } from './password.ts';
import {
  claimPasswordReset,
  findPasswordResetByTokenHash,
  findPasswordResetEmail,
  findPasswordResetValidity,
  insertPasswordReset,
  spendOpenPasswordResetsOfUser,
} from './password-reset.store.ts';
import { auditInEveryOrganization, selfActor } from './audit-person.ts';
import { deleteSessionsOfUser } from './session.store.ts';
import { findUserIdByEmail, updateUserPassword } from './user.store.ts';

/** How long a "forgot password" link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

/** The tag of every reset email: the send-worker looks no further at an email without it. */
const RESET_TAG = 'tidings-password-reset';

function hashResetToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// The link's token, derived from the reset's id and the server's secret (the purpose leads what is signed, as in
// the unsubscribe and tracking tokens), so the send-worker can put it in the email at hand-off without storing it.
function resetToken(secret: string, resetId: string): string {
  return createHmac('sha256', secret).update(`password-reset:${resetId}`).digest('base64url');
}

/** What stands for the token in the stored email: it opens nothing (no token hashes to it). */
const sealedToken = (resetId: string) => `sealed.${resetId}`;
const SEALED_LINK = /\/reset-password\/sealed\.(pwr_[A-Za-z0-9]+)/;

function resetLink(config: Deps['config'], token: string): string {
  return `${config.publicDashboardUrl.replace(/\/+$/, '')}/reset-password/${token}`; // the configured address, never a request's Host
}

function resetEmail(address: string, link: string): { subject: string; text: string; html: string } {
  const shown = address.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return {
    subject: 'Reset your Tidings password',
    text: `Someone asked to reset the password of ${address} on Tidings. To choose a new one, open this link within an hour:\n\n${link}\n\nIt works once. If it was not you, ignore this email: your password stays as it is.`,
    html: `<p>Someone asked to reset the password of ${shown} on Tidings. To choose a new one, open this link within an hour:</p><p><a href="${link}">Choose a new password</a></p><p>It works once. If it was not you, ignore this email: your password stays as it is.</p>`,
  };
}

/** Whether the install sends email through the sandbox only: a local install, whose inbox is where the link is read. */
const isSandboxOnly = (config: Deps['config']) => config.providerLists.email.every((name) => name === 'sandbox');

/**
 * The organization whose send path carries a person's reset email, and in which mode: their oldest membership (the
 * organization they first joined; a person in several gets one email, from one of them). `test` (the sandbox) while
 * the install sends email through the sandbox only, or the organization is one made for testing; else `live`, through
 * the organization's own provider and default sender. Null for a person in no organization (who cannot sign in).
 */
async function senderOf(deps: Deps, userId: string): Promise<{ orgId: string; mode: 'live' | 'test' } | null> {
  const [membership] = await listMemberships(deps.db, userId);
  if (!membership) return null;
  const org = await findOrganizationLiveKeysAllowed(deps.db, membership.orgId);
  return { orgId: membership.orgId, mode: isSandboxOnly(deps.config) || !org?.liveKeysAllowed ? 'test' : 'live' };
}

/**
 * "Forgot password": when the address belongs to someone, stores a one-use reset valid {@link PASSWORD_RESET_TTL_MS}
 * and emails them its link through Tidings' own send path (see `senderOf`). The email is an ordinary message of the
 * organization, readable by its API keys, members, webhooks and message.getSource, so what is stored carries a sealed
 * link: the working one is put in only on the way to the provider (passwordResetLinkTransform). An install that sends
 * through the sandbox only stores the working link, since its sandbox inbox is the only place to read it. Untracked,
 * so no click link carries it either. Says nothing either way, so a caller's answer cannot reveal which addresses
 * have accounts; a send the organization cannot make (a live organization without a default sender) is logged,
 * without the link.
 * @example await requestPasswordReset(deps, form.email);
 */
export async function requestPasswordReset(deps: Deps, email: string): Promise<void> {
  let address: string;
  try {
    address = parsePersonEmail(email);
  } catch {
    return; // not an address: nobody to write to
  }
  const user = await findUserIdByEmail(deps.db, address);
  if (!user) return;
  const sender = await senderOf(deps, user.id);
  if (!sender) return;
  const id = newId('pwr');
  const token = resetToken(deps.config.broadcasts.unsubscribeSecret, id);
  await insertPasswordReset(deps.db, { id, tokenHash: hashResetToken(token), userId: user.id, expiresAt: new Date(deps.now().getTime() + PASSWORD_RESET_TTL_MS) });
  const content = resetEmail(address, resetLink(deps.config, isSandboxOnly(deps.config) ? token : sealedToken(id)));
  const { errors } = await sendMessages({ deps, orgId: sender.orgId, mode: sender.mode }, [
    { channelType: 'email', to: address, ...content, tags: [RESET_TAG], tracking: { opens: false, clicks: false } },
  ]);
  if (errors.length > 0) {
    deps.logger.warn({ orgId: sender.orgId, userId: user.id, reason: errors[0]!.message }, 'password reset email not sent');
  }
}

/** The reset email with its working link, for a message exactly as requestPasswordReset stored it; null otherwise. */
async function workingResetEmail(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow) {
  const resetId = SEALED_LINK.exec(message.text ?? '')?.[1];
  if (!resetId || message.additionalTo.length > 0 || message.cc.length > 0 || message.bcc.length > 0) return null;
  const reset = await findPasswordResetEmail(deps.db, resetId);
  if (!reset || reset.user.email !== message.to) return null;
  const stored = resetEmail(message.to, resetLink(deps.config, sealedToken(resetId)));
  if (message.subject !== stored.subject || message.text !== stored.text || message.html !== stored.html) return null;
  return resetEmail(message.to, resetLink(deps.config, resetToken(deps.config.broadcasts.unsubscribeSecret, resetId)));
}

/**
 * The email as its provider gets it: a reset email's sealed link replaced by the working one. Only for an email
 * exactly as requestPasswordReset stored it, to the person the reset is for and nobody else, so a key that copies a
 * sealed link into its own email (another address, another link around it, a cc) sends it sealed. Any other email
 * is returned as it is, without a query.
 */
export const passwordResetLinkTransform: OutgoingTransform = {
  name: 'password-reset-link',
  stage: 'handOff',
  async rewriteFor(deps, message) {
    if (message.channelType !== 'email' || !message.tags.includes(RESET_TAG)) return null;
    const working = await workingResetEmail(deps, message);
    return working && { email: (email) => ({ ...email, text: working.text, html: working.html }) };
  },
};

/**
 * Whether a reset link's token is still good (the page that asks for the new password shows it only then).
 * @example if (!(await isPasswordResetUsable(deps, token))) return linkRefusedPage(c);
 */
export async function isPasswordResetUsable({ db, now }: Pick<Deps, 'db' | 'now'>, token: string): Promise<boolean> {
  const reset = await findPasswordResetValidity(db, hashResetToken(token));
  return !!reset && reset.usedAt === null && reset.expiresAt > now();
}

/**
 * Sets a new password through a reset link: claims the link (once: a conditional update), changes the password,
 * spends every other open link of the person and ends all their sessions, in one transaction. NOT_FOUND for a link
 * that is unknown, used or expired; BAD_REQUEST for a password too short or long (the link stays usable).
 * @example const { userId } = await resetPasswordWithToken(deps, token, form.password);
 */
export async function resetPasswordWithToken(
  { db, now, actor, config }: Pick<Deps, 'db' | 'now' | 'actor' | 'config'>,
  token: string,
  password: string,
): Promise<{ userId: string; signedOut: number }> {
  checkPassword(password);
  const passwordHash = await hashPassword(password, config);
  return db.$transaction(async (tx) => {
    const at = now();
    const reset = await findPasswordResetByTokenHash(tx, hashResetToken(token));
    const claimed = reset ? await claimPasswordReset(tx, reset.id, at) : { count: 0 };
    if (!reset || claimed.count === 0) throw new AppError('NOT_FOUND', 'This link has been used or has expired');
    await updateUserPassword(tx, reset.userId, passwordHash);
    await spendOpenPasswordResetsOfUser(tx, reset.userId, at);
    const { count } = await deleteSessionsOfUser(tx, reset.userId);
    // nobody is signed in on the reset page: the person with the link is the actor
    await auditInEveryOrganization(tx, { ...selfActor(reset.userId), ip: actor?.ip ?? null }, reset.userId, 'member.passwordReset');
    return { userId: reset.userId, signedOut: count };
  });
}
