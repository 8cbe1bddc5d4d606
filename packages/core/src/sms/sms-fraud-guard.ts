import type { KeyMode } from '@tidings/providers';
import parsePhoneNumber from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/max/metadata';
import type { Deps } from '../deps.ts';
import { AppError, RetryLaterError } from '../errors.ts';
import { newId } from '../ids.ts';
import { takeRateLimit } from '../rate-limit.ts';
import { countPrefixApprovals, findSmsCountrySettings, insertSmsRefusals } from './sms-guard.store.ts';

/** Number types an SMS never goes to: those a fraudster can be paid for, and those nobody can tell. */
const REFUSED_TYPES = new Set(['PREMIUM_RATE', 'SHARED_COST']);
/** Below this many codes to a prefix, too few to call a low approval rate a pattern. */
const PUMPING_MIN_SENT = 10;
/** Approved share under which a prefix's codes look pumped (many sends, almost no approvals). */
const PUMPING_MAX_APPROVED_SHARE = 0.2;
/** How much tighter the velocity limit is for a prefix that looks pumped. */
const PUMPING_TIGHTENING = 10;
const HOUR_MS = 3_600_000;

/** Why the guard refused an SMS: the audit row's target and the dashboard's grouping. */
export type SmsRefusalReason = 'country' | 'number_type' | 'prefix_velocity';

/** Where an SMS goes: its country (ISO alpha-2), `+CC NNN` prefix and libphonenumber type (null when unknown). */
export type SmsDestination = { country: string | null; prefix: string | null; type: string | null };

/**
 * The country, prefix and number type of an E.164 number, by libphonenumber's full metadata.
 * @example smsDestinationOf('+447911123456') // { country: 'GG', prefix: '+44 791', type: 'MOBILE' }
 */
export function smsDestinationOf(to: string): SmsDestination {
  const parsed = parsePhoneNumber(to);
  if (!parsed) return { country: null, prefix: null, type: null };
  return { country: parsed.country ?? null, prefix: `+${parsed.countryCallingCode} ${parsed.nationalNumber.slice(0, 3)}`, type: parsed.getType() ?? null };
}

/** A number's country, or the main country of its calling code for a number outside every plan (+1 555 is US). */
function countryOfNumber(number: string): string | null {
  const parsed = parsePhoneNumber(number);
  if (!parsed) return null;
  const codes = metadata.country_calling_codes as Record<string, string[]>;
  return parsed.country ?? codes[parsed.countryCallingCode]?.[0] ?? null;
}

/**
 * The countries the organization allows SMS to: its `smsCountries` once set, else the countries of its numbers.
 * @example const allowed = await allowedSmsCountries(deps, orgId); // ['US']
 */
export async function allowedSmsCountries({ db }: Pick<Deps, 'db'>, orgId: string): Promise<string[]> {
  const { smsCountries, numbers } = await findSmsCountrySettings(db, orgId);
  if (Array.isArray(smsCountries)) return smsCountries as string[];
  const countries = numbers.map((n) => n.country ?? countryOfNumber(n.number)).filter((c): c is string => c !== null);
  return [...new Set(countries)].sort();
}

type Refusal = { index: number; reason: SmsRefusalReason; error: AppError };

function staticRefusal(to: string, allowed: Set<string>): Omit<Refusal, 'index'> | null {
  const { country, type } = smsDestinationOf(to);
  if (!country || !allowed.has(country)) {
    const named = country ?? 'unknown';
    return { reason: 'country', error: new AppError('BAD_REQUEST', `to: country ${named} is not enabled for SMS in this organization (organization.update smsCountries)`) };
  }
  if (!type || REFUSED_TYPES.has(type)) {
    const kind = type ? type.toLowerCase().replace('_', '-') : 'unknown';
    return { reason: 'number_type', error: new AppError('BAD_REQUEST', `to: SMS to ${kind} numbers are refused (fraud guard)`) };
  }
  return null;
}

/**
 * The SMS fraud guard, run before every SMS is written: refuses a live SMS to a country the organization does not
 * allow, to a premium-rate, shared-cost or unknown number type (400), and beyond SMS_PREFIX_LIMIT_PER_HOUR to one
 * `+CC NNN` prefix, a tenth of that where the prefix's codes are almost never approved (429 with Retry-After). Each
 * refusal is an `sms.refused` audit row naming the reason. Test keys send through the sandbox, which costs nothing:
 * they pass. A bounded number of round trips whatever the count (two reads, one pipelined Redis burst, one insert).
 * @returns the refused items by index
 * @example const refused = await guardSmsSends(deps, orgId, 'live', [{ index: 0, to: '+14155550123' }]);
 */
export async function guardSmsSends(
  deps: Pick<Deps, 'db' | 'config' | 'rateLimits' | 'actor' | 'now'>,
  orgId: string,
  mode: KeyMode,
  items: { index: number; to: string }[],
): Promise<Map<number, AppError>> {
  const refused = new Map<number, AppError>();
  if (mode !== 'live' || items.length === 0) return refused;
  const allowed = new Set(await allowedSmsCountries(deps, orgId));
  const refusals: Refusal[] = [];
  const passing: { index: number; prefix: string }[] = [];
  for (const item of items) {
    const refusal = staticRefusal(item.to, allowed);
    if (refusal) refusals.push({ index: item.index, ...refusal });
    else passing.push({ index: item.index, prefix: smsDestinationOf(item.to).prefix! });
  }
  if (passing.length > 0) {
    const prefixes = [...new Set(passing.map((p) => p.prefix))];
    const stats = await countPrefixApprovals(deps.db, orgId, prefixes, new Date(deps.now().getTime() - 24 * HOUR_MS));
    const perHour = deps.config.verify.smsPrefixLimitPerHour;
    const pumped = new Set(stats.filter((s) => s.sent >= PUMPING_MIN_SENT && s.approved / s.sent < PUMPING_MAX_APPROVED_SHARE).map((s) => s.prefix));
    const taken = await Promise.all(
      passing.map((p) =>
        takeRateLimit(deps, `tidings:sms-prefix:${orgId}:${p.prefix}`, {
          limit: pumped.has(p.prefix) ? Math.max(1, Math.floor(perHour / PUMPING_TIGHTENING)) : perHour,
          windowMs: HOUR_MS,
        }),
      ),
    );
    for (const [i, result] of taken.entries()) {
      if (result.isAllowed) continue;
      const { index, prefix } = passing[i]!;
      const message = `to: too many SMS to ${prefix} this hour (fraud guard${pumped.has(prefix) ? ': its codes are rarely approved' : ''}); retry in ${result.resetSeconds} s`;
      refusals.push({ index, reason: 'prefix_velocity', error: new RetryLaterError(message, result.resetSeconds, 'RATE_LIMITED') });
    }
  }
  const { actor } = deps;
  await insertSmsRefusals(
    deps.db,
    refusals.map((r) => ({
      id: newId('aud'),
      orgId,
      action: 'sms.refused',
      targetId: r.reason,
      actorType: actor?.type ?? 'apiKey',
      actorId: actor?.id ?? null,
      ip: actor?.ip ?? null,
      mode,
    })),
  );
  for (const r of refusals) refused.set(r.index, r.error);
  return refused;
}
