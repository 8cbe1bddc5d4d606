import { randomBytes } from 'node:crypto';
import type { CreateVerificationBody } from '@tidings/contracts';
import type { Message as MessageRow, Verification as VerificationRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import type { OutgoingTransform } from '../messages/outgoing-message.ts';
import { AppError } from '../errors.ts';
import { renderTemplateForSend } from '../templates/render-for-send.ts';
import { CODE_MASK, codeOf, fillCode } from './verification-code.ts';
import { findOrgVerification } from './verification.store.ts';

/** The message metadata that ties a message to its verification and to which of its sends it is. */
export const VERIFICATION_METADATA = { id: 'verificationId', send: 'verificationSend' } as const;

/** The content of a code's message, with `placeholder` where the code goes. */
export type CodeContent = { subject?: string; text?: string; html?: string; body?: string };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The English default texts, naming the organization. */
function defaultContent(channelType: 'sms' | 'email', orgName: string, placeholder: string, minutes: number): CodeContent {
  const expiry = `It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
  if (channelType === 'sms') return { body: `Your ${orgName} verification code is ${placeholder}. ${expiry} Do not share it with anyone.` };
  return {
    subject: `Your ${orgName} verification code`,
    text: `Your ${orgName} verification code is: ${placeholder}\n\n${expiry} If you did not ask for it, ignore this email.`,
    html: `<p>Your ${escapeHtml(orgName)} verification code is:</p><p style="font-size:24px;letter-spacing:4px"><strong>${placeholder}</strong></p><p>${expiry} If you did not ask for it, ignore this email.</p>`,
  };
}

/**
 * The content of a verification's message with a unique placeholder where the code goes: the default texts, or the
 * template rendered with `code` set to the placeholder (a template whose output does not show it is a 400: it must use
 * `{{ code }}`). The caller puts in the code (test mode) or the mask (live).
 * @example const { content, placeholder } = await codeMessageContent(deps, orgId, 'Acme', input);
 */
export async function codeMessageContent(
  deps: Pick<Deps, 'db' | 'renderer'>,
  orgId: string,
  orgName: string,
  input: Pick<CreateVerificationBody, 'channelType' | 'templateId' | 'locale' | 'expiresInSeconds'>,
): Promise<{ content: CodeContent; placeholder: string }> {
  // letters and digits only: it survives HTML escaping and any filter a template applies to other text
  const placeholder = `VERIFYCODE${randomBytes(12).toString('hex')}`;
  const minutes = Math.round(input.expiresInSeconds / 60);
  if (!input.templateId) return { content: defaultContent(input.channelType, orgName, placeholder, minutes), placeholder };
  const rendered = await renderTemplateForSend(deps, orgId, {
    templateId: input.templateId,
    channelType: input.channelType,
    variables: { code: placeholder, organization: orgName, expiresInMinutes: minutes, locale: input.locale ?? 'en' },
  });
  const content = { subject: rendered.subject, text: rendered.text, html: rendered.html, body: rendered.body };
  const shown = [content.text, content.html, content.body].some((part) => part?.includes(placeholder));
  if (!shown) throw new AppError('BAD_REQUEST', 'templateId: the template must use {{ code }} in its text, html or body');
  return { content, placeholder };
}

/** `content` with the placeholder replaced by `value`: the code, or the mask. */
export function withCode(content: CodeContent, placeholder: string, value: string): CodeContent {
  return {
    subject: fillCode(content.subject, placeholder, CODE_MASK), // a subject shows in notifications: never the code
    text: fillCode(content.text, placeholder, value),
    html: fillCode(content.html, placeholder, value),
    body: fillCode(content.body, placeholder, value),
  };
}

/**
 * At hand-off to a live provider: the code of the verification `message` carries, derived again from the seed (the
 * stored body shows only the mask). Null, without a query, for any other message; null too when the message is not
 * that verification's (another recipient, channel or organization), so a key copying the metadata sends the mask.
 * @example const code = await verificationCodeForHandOff(deps, message); sms: () => withHandOffCode(outgoingSms(message), code)
 */
export async function verificationCodeForHandOff(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow): Promise<string | null> {
  const metadata = (message.metadata ?? {}) as Record<string, string>;
  const id = metadata[VERIFICATION_METADATA.id];
  const send = Number(metadata[VERIFICATION_METADATA.send]);
  if (!id || message.mode !== 'live' || !Number.isInteger(send) || send < 1) return null;
  const verification: VerificationRow | null = await findOrgVerification(deps.db, message.orgId, id);
  if (!verification || verification.to !== message.to || verification.channelType !== message.channelType || send > verification.sendAttempts) return null;
  return codeOf(deps.config.verify.secret, verification, send);
}

/**
 * What a provider gets: the mask in the text, html or body replaced by the code (as is without a code).
 * @example withHandOffCode({ body: 'Your code is ******' }, '492817') // { body: 'Your code is 492817' }
 */
export function withHandOffCode<T extends { text?: string | null; html?: string | null } | { body: string }>(outgoing: T, code: string | null): T {
  if (code === null) return outgoing;
  const filled: Record<string, unknown> = { ...outgoing };
  for (const part of ['text', 'html', 'body']) if (typeof filled[part] === 'string') filled[part] = fillCode(filled[part] as string, CODE_MASK, code);
  return filled as T;
}

/** A live one-time code's message is stored masked: the code goes in on the way to the provider only. */
export const handOffCodeTransform: OutgoingTransform = {
  name: 'verification-code',
  stage: 'handOff',
  async rewriteFor(deps, message) {
    const code = await verificationCodeForHandOff(deps, message);
    return code === null ? null : { email: (email) => withHandOffCode(email, code), sms: (sms) => withHandOffCode(sms, code) };
  },
};
