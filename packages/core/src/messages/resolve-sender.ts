import { sendsToSandbox, type KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { listSenderDomains } from '../email-domains/email-domain.store.ts';
import { listSenderNumbers } from '../phone-numbers/phone-number.store.ts';
import { parseE164, parseEmail } from './recipients.ts';
import { loadSenderPool } from './sender-pool.ts';

/** The senders of `sk_test_` keys when `from` is absent. */
export const SANDBOX_DEFAULT_SENDERS = { email: 'sandbox@tidings.test', sms: '+15005550006' } as const;

type SenderRequest = { channelType: 'email' | 'sms'; from?: string; to?: string | string[] };

/** `Name <address>`, quoting a display name that holds characters with meaning in an address header. */
function formatMailbox(name: string | null, address: string): string {
  if (!name) return address;
  return /[",<>@;:()[\]\\]/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>` : `${name} <${address}>`;
}

/**
 * Loads what is needed to decide the sender of every item of a request, in at most two queries (verified domains
 * and owned numbers, only those the request names plus the defaults), two more when SMS come without `from` (the
 * pool: the organization's numbers, and who last sent to each recipient), and returns a function that decides one
 * item's `from` or throws BAD_REQUEST. `sk_test_` keys never touch the database: any from, sandbox defaults.
 * @example const senderOf = await loadSenderResolver(deps, orgId, 'live', items); const from = senderOf(items[0]);
 */
export async function loadSenderResolver(deps: Deps, orgId: string, mode: KeyMode, items: SenderRequest[]): Promise<SenderResolver> {
  const parsedFrom = (item: SenderRequest): string | { address: string; name: string | null; domain: string } | undefined => {
    if (item.from === undefined) return undefined;
    if (item.channelType === 'sms') {
      const number = parseE164(item.from);
      if (!number) throw new AppError('BAD_REQUEST', 'from: must be an E.164 phone number (like +14155550123) for channelType sms');
      return number;
    }
    const mailbox = parseEmail(item.from, { allowName: true });
    if (!mailbox) throw new AppError('BAD_REQUEST', 'from: must be a valid email address (optionally "Name <address>") for channelType email');
    return mailbox;
  };

  if (sendsToSandbox(mode)) {
    return withTracking(new Map(), (item) => {
      const from = parsedFrom(item);
      if (from === undefined) return SANDBOX_DEFAULT_SENDERS[item.channelType];
      return typeof from === 'string' ? from : formatMailbox(from.name, from.address);
    });
  }

  const domainNames = new Set<string>();
  const numbers = new Set<string>();
  for (const item of items) {
    try {
      const from = parsedFrom(item);
      if (typeof from === 'string') numbers.add(from);
      else if (from) domainNames.add(from.domain);
    } catch {
      // a malformed from is reported when the item itself is resolved
    }
  }
  // an SMS without `from` takes a number of the organization's pool (sender-pool.ts) before the default
  const pooled = items.filter((i) => i.channelType === 'sms' && i.from === undefined && typeof i.to === 'string').map((i) => i.to as string);
  const [domains, phones, pool] = await Promise.all([
    items.some((i) => i.channelType === 'email') ? listSenderDomains(deps.db, orgId, [...domainNames]) : [],
    items.some((i) => i.channelType === 'sms') ? listSenderNumbers(deps.db, orgId, [...numbers]) : [],
    pooled.length > 0 ? loadSenderPool(deps, orgId, pooled) : null,
  ]);
  const verified = new Set(domains.map((d) => d.name.toLowerCase()));
  const owned = new Set(phones.map((p) => p.number));
  const defaultDomain = domains.find((d) => d.defaultFromAddress);
  const defaultNumber = phones.find((p) => p.isDefault);

  const trackingByDomain = new Map(domains.map((d) => [d.name.toLowerCase(), { opens: d.openTracking, clicks: d.clickTracking }]));
  return withTracking(trackingByDomain, (item) => {
    const from = parsedFrom(item);
    if (item.channelType === 'sms') {
      if (typeof from === 'string') {
        if (!owned.has(from))
          throw new AppError('BAD_REQUEST', `from: ${from} is not a phone number of this organization; use an sk_test_ key (the sandbox sends from any number), or buy the number`);
        return from;
      }
      const picked = pool?.(typeof item.to === 'string' ? item.to : undefined);
      if (picked) return picked;
      if (!defaultNumber)
        throw new AppError(
          'BAD_REQUEST',
          'from: this organization has no default phone number; use an sk_test_ key (the sandbox needs none), or buy a number and mark it as default',
        );
      return defaultNumber.number;
    }
    if (from && typeof from !== 'string') {
      if (!verified.has(from.domain))
        throw new AppError(
          'BAD_REQUEST',
          `from: ${from.domain} is not a verified email domain of this organization; use an sk_test_ key (the sandbox sends from any address), or verify a domain`,
        );
      return formatMailbox(from.name, from.address);
    }
    if (!defaultDomain?.defaultFromAddress) {
      throw new AppError(
        'BAD_REQUEST',
        'from: this organization has no default sender; use an sk_test_ key (the sandbox needs none), or verify a domain and set its default sender',
      );
    }
    return formatMailbox(defaultDomain.defaultFromName, defaultDomain.defaultFromAddress);
  });
}

/** Decides an item's sender, and tells the tracking settings of the domain of a sender it decided. */
export type SenderResolver = ((item: SenderRequest) => string) & { trackingOf(from: string): { opens: boolean; clicks: boolean } };

const TRACKING_OFF = { opens: false, clicks: false };

function withTracking(byDomain: Map<string, { opens: boolean; clicks: boolean }>, senderOf: (item: SenderRequest) => string): SenderResolver {
  // a decided sender is `address` or `Name <address>`: its domain follows the last @
  const trackingOf = (from: string) =>
    byDomain.get(
      from
        .slice(from.lastIndexOf('@') + 1)
        .replace(/>$/, '')
        .toLowerCase(),
    ) ?? TRACKING_OFF;
  return Object.assign(senderOf, { trackingOf });
}
