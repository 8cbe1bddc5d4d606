import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OutgoingTransform } from '../messages/outgoing-message.ts';

export type UnsubscribeSubject = { contactId: string; broadcastId: string };

// Ids are [A-Za-z0-9_]; the token names the contact and the broadcast by id only, never an address.
const ID = /^[A-Za-z0-9_]{1,64}$/;
// a whole HMAC-SHA256 in base64url: checked as characters, so no other text reaches the byte comparison
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** What a link's token lets its holder do: unsubscribe (`/u/`) or choose topics (`/p/`); one never passes for the other. */
type LinkPurpose = 'unsubscribe' | 'preferences';

function signatureOf(secret: string, subject: UnsubscribeSubject, purpose: LinkPurpose = 'unsubscribe'): string {
  return createHmac('sha256', secret).update(`${purpose}:${subject.contactId}:${subject.broadcastId}`).digest('base64url');
}

/**
 * The token of an unsubscribe link: the contact and broadcast ids and an HMAC-SHA256 over them with the server's
 * secret, so it cannot be forged or guessed from an address.
 * @example unsubscribeToken(config.broadcasts.unsubscribeSecret, { contactId: 'con_1', broadcastId: 'brd_1' }) // 'con_1.brd_1.Xy...'
 */
export function unsubscribeToken(secret: string, subject: UnsubscribeSubject, purpose: LinkPurpose = 'unsubscribe'): string {
  return `${subject.contactId}.${subject.broadcastId}.${signatureOf(secret, subject, purpose)}`;
}

/**
 * The subject of a token this server signed, or null for anything else (malformed, tampered, another secret's).
 * @example readUnsubscribeToken(secret, token)?.contactId
 */
export function readUnsubscribeToken(secret: string, token: string, purpose: LinkPurpose = 'unsubscribe'): UnsubscribeSubject | null {
  const [contactId, broadcastId, signature, ...rest] = token.split('.');
  if (rest.length > 0 || !contactId || !broadcastId || !signature || !ID.test(contactId) || !ID.test(broadcastId)) return null;
  if (!SIGNATURE.test(signature)) return null;
  const expected = Buffer.from(signatureOf(secret, { contactId, broadcastId }, purpose));
  return timingSafeEqual(expected, Buffer.from(signature)) ? { contactId, broadcastId } : null;
}

/**
 * The public unsubscribe link of a contact for a broadcast.
 * @example unsubscribeUrl('https://api.example.com', secret, { contactId, broadcastId }) // 'https://api.example.com/u/con_...'
 */
export function unsubscribeUrl(publicApiUrl: string, secret: string, subject: UnsubscribeSubject): string {
  return `${publicApiUrl.replace(/\/+$/, '')}/u/${unsubscribeToken(secret, subject)}`;
}

/**
 * The public preference page of a contact, reached from a broadcast (the same subject as its unsubscribe link,
 * signed for another purpose).
 * @example preferencesUrl('https://api.example.com', secret, { contactId, broadcastId }) // 'https://api.example.com/p/con_...'
 */
export function preferencesUrl(publicApiUrl: string, secret: string, subject: UnsubscribeSubject): string {
  return `${publicApiUrl.replace(/\/+$/, '')}/p/${unsubscribeToken(secret, subject, 'preferences')}`;
}

/**
 * The header fields every broadcast email carries (RFC 2369 and RFC 8058): mail clients show an unsubscribe button
 * and unsubscribe with one POST to the link, no page in between. Null for any other message.
 * @example listUnsubscribeHeaders(config.publicApiUrl, secret, message) // { 'List-Unsubscribe': '<https://.../u/...>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
 */
export function listUnsubscribeHeaders(
  publicApiUrl: string,
  secret: string,
  message: { channelType: string; broadcastId: string | null; contactId: string | null },
): Record<string, string> | null {
  if (message.channelType !== 'email' || !message.broadcastId || !message.contactId) return null;
  const link = unsubscribeUrl(publicApiUrl, secret, { contactId: message.contactId, broadcastId: message.broadcastId });
  return { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** A broadcast's email carries its List-Unsubscribe header fields to whichever provider sends it (and in its source). */
export const listUnsubscribeTransform: OutgoingTransform = {
  name: 'list-unsubscribe',
  stage: 'source',
  rewriteFor({ config }, message) {
    const headers = listUnsubscribeHeaders(config.publicApiUrl, config.broadcasts.unsubscribeSecret, message);
    return headers && { email: (email) => ({ ...email, headers: { ...email.headers, ...headers } }) };
  },
};
