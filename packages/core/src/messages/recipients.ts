import { parseOneAddress, type ParsedMailbox } from 'email-addresses';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * The everyday address (dot-atom local part of common characters, dotted domain): a subset of what the RFC 5322
 * parser accepts, answered without it. The parser took a seventh of the API's time on message.sendBatch.
 */
const PLAIN_ADDRESS = /^[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@((?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]+)$/;

/**
 * Parses an RFC 5322 address (`ada@example.com`, or `Ada <ada@example.com>` when `allowName`), with a dotted
 * domain. Returns the lower-cased address and the display name, or null when it is not one.
 * @example parseEmail('Acme <Hi@Acme.com>', { allowName: true }) // { address: 'hi@acme.com', name: 'Acme', domain: 'acme.com' }
 */
export function parseEmail(input: string, options: { allowName?: boolean } = {}): { address: string; name: string | null; domain: string } | null {
  const plain = PLAIN_ADDRESS.exec(input);
  if (plain) return { address: input.toLowerCase(), name: null, domain: plain[1]!.toLowerCase() };
  const parsed = parseOneAddress({ input, rejectTLD: true });
  if (parsed?.type !== 'mailbox') return null;
  const mailbox = parsed as ParsedMailbox;
  if (mailbox.name && !options.allowName) return null;
  const address = mailbox.address.toLowerCase();
  return { address, name: mailbox.name || null, domain: mailbox.domain.toLowerCase() };
}

/**
 * The lower-cased address of an email recipient as stored: `ada@example.com`, or a Cc kept with its display name.
 * @example recipientAddress('"Ann Example" <Ann@Example.com>') // 'ann@example.com'
 */
export function recipientAddress(recipient: string): string {
  return parseEmail(recipient, { allowName: true })?.address ?? recipient.trim().toLowerCase();
}

/**
 * The number when `input` is already a valid E.164 number (`+` and digits only), else null.
 * @example parseE164('+14155550123') // '+14155550123'
 */
export function parseE164(input: string): string | null {
  if (!/^\+[1-9]\d{6,14}$/.test(input)) return null;
  const phone = parsePhoneNumberFromString(input);
  return phone?.isValid() && phone.number === input ? input : null;
}

/** The form a recipient is stored, filtered and suppressed under: a lower-cased email address or E.164. */
export function normalizeRecipient(input: string): string {
  return input.includes('@') ? input.trim().toLowerCase() : input.trim();
}
