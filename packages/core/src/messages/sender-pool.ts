import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Deps } from '../deps.ts';
import { listPoolNumbers } from '../phone-numbers/phone-number.store.ts';
import { findLastSenders } from './message-read.store.ts';
import { parseE164 } from './recipients.ts';

/** Picks the sending number of an SMS without `from`; undefined: none fits (the caller takes the default). */
export type SenderPool = (to: string | undefined) => string | undefined;

/**
 * The organization's numbers as a pool, for the SMS of one request without `from` (two queries, whatever the count):
 * the number that last sent to the recipient if the organization still has it (sticky sender), else one of the
 * recipient's country, the same one for the same recipient (a hash of it spreads recipients over them); else none.
 * @example const pick = await loadSenderPool(deps, orgId, ['+14155550123']); pick('+14155550123') // '+14155550100'
 */
export async function loadSenderPool(deps: Pick<Deps, 'db'>, orgId: string, recipients: string[]): Promise<SenderPool> {
  const normalized = [...new Set(recipients.map((to) => parseE164(to)).filter((to): to is string => to !== null))];
  const [numbers, lastSenders] = await Promise.all([listPoolNumbers(deps.db, orgId), normalized.length > 0 ? findLastSenders(deps.db, orgId, normalized) : []]);
  const owned = new Set(numbers.map((n) => n.number));
  const sticky = new Map(lastSenders.filter((s) => owned.has(s.from)).map((s) => [s.to, s.from]));
  return (to) => {
    const recipient = to ? parseE164(to) : null;
    if (!recipient) return undefined;
    const last = sticky.get(recipient);
    if (last) return last;
    const country = parsePhoneNumberFromString(recipient)?.country;
    const local = numbers.filter((n) => n.country && n.country === country).map((n) => n.number);
    if (local.length === 0) return undefined;
    const spread = createHash('sha256').update(recipient).digest().readUInt32BE(0);
    return local[spread % local.length];
  };
}
