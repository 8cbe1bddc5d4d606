import { getCountry } from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** A daily window, local to the recipient, in which no broadcast SMS arrives (`"21:00"` to `"08:00"` wraps midnight). */
export type QuietHours = { start: string; end: string };

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const isZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false; // not an IANA zone this runtime knows: the number decides instead
  }
};

/**
 * The time zones a recipient may be in: the contact's `timezone` attribute when it is an IANA zone, else every zone
 * of the number's country (libphonenumber-js); none when neither is known.
 * @example zonesOf({ phone: '+14155550123', attributes: {} }) // ['America/Adak', ..., 'Pacific/Honolulu']
 */
export function zonesOf(contact: { phone: string | null; attributes: unknown }): string[] {
  const timezone = (contact.attributes as Record<string, unknown> | null)?.timezone;
  if (typeof timezone === 'string' && isZone(timezone)) return [timezone];
  const country = contact.phone ? parsePhoneNumberFromString(contact.phone)?.country : undefined;
  return (country && getCountry(country)?.timezones) || [];
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of `zone` at `at`, as a UTC timestamp of the same digits (so differences are the zone's offset). */
function wallClock(zone: string, at: number): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, Number(p.value)]));
  return Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
}

/** The instant at which the wall clock of `zone` shows `wall` (its digits as UTC); across a DST gap, the hour after. */
function instantOf(zone: string, wall: number): number {
  let at = wall - (wallClock(zone, wall) - wall);
  at = wall - (wallClock(zone, at) - at); // the offset at the answer, which differs from the first guess's across a change
  return at;
}

/** When `at` falls inside the window in `zone`: the instant the window next ends there; otherwise null. */
function windowEndAfter(zone: string, at: number, { start, end }: QuietHours): number | null {
  const wall = wallClock(zone, at);
  const minute = Math.floor((wall % 86_400_000) / 60_000);
  const [from, to] = [minutesOf(start), minutesOf(end)];
  const isQuiet = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  if (!isQuiet) return null;
  const day = wall - (wall % 86_400_000);
  const endWall = day + to * 60_000 + (minute >= to ? 86_400_000 : 0);
  return instantOf(zone, endWall);
}

/**
 * When a broadcast SMS due at `due` may arrive: `due` itself when it is outside the quiet window in every zone the
 * recipient may be in, else the first time after it that is outside the window everywhere (the latest-ending zone's
 * end of the window, where a country spans several).
 * @example quietUntil(new Date('2026-07-01T02:00:00Z'), { start: '21:00', end: '08:00' }, ['America/New_York']) // 12:00Z
 */
export function quietUntil(due: Date, window: QuietHours, zones: string[]): Date {
  let at = due.getTime();
  // each pass moves past one zone's window; a time outside every window is found within a pass per zone
  for (let pass = 0; pass <= zones.length; pass += 1) {
    const ends = zones.map((zone) => windowEndAfter(zone, at, window)).filter((end): end is number => end !== null);
    if (ends.length === 0) break;
    at = Math.max(...ends);
  }
  return new Date(at);
}
