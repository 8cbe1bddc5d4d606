import { quietUntil, zonesOf } from './quiet-hours.ts';

const night = { start: '21:00', end: '08:00' };
const at = (iso: string) => new Date(iso);

describe('quietUntil', () => {
  it('leaves a time outside the window as it is', () => {
    expect(quietUntil(at('2026-07-01T15:00:00Z'), night, ['America/New_York'])).toEqual(at('2026-07-01T15:00:00Z')); // 11:00 EDT
  });

  it('moves a time inside a window that wraps midnight to its end, the next local morning', () => {
    expect(quietUntil(at('2026-07-01T02:00:00Z'), night, ['America/New_York'])).toEqual(at('2026-07-01T12:00:00Z')); // 22:00 EDT -> 08:00 EDT
    expect(quietUntil(at('2026-07-01T11:59:00Z'), night, ['America/New_York'])).toEqual(at('2026-07-01T12:00:00Z'));
    expect(quietUntil(at('2026-07-01T12:00:00Z'), night, ['America/New_York'])).toEqual(at('2026-07-01T12:00:00Z')); // the end is open
  });

  it('handles a window inside one day', () => {
    const lunch = { start: '12:00', end: '13:30' };
    expect(quietUntil(at('2026-07-01T10:15:00Z'), lunch, ['Europe/London'])).toEqual(at('2026-07-01T10:15:00Z')); // 11:15 BST: outside
    expect(quietUntil(at('2026-07-01T11:15:00Z'), lunch, ['Europe/London'])).toEqual(at('2026-07-01T12:30:00Z')); // 12:15 BST -> 13:30 BST
  });

  it('ends at the local 08:00 across a DST change (New York, 1 November 2026)', () => {
    // 22:00 EDT on 31 October; clocks go back at 02:00 on 1 November, so 08:00 that morning is EST (13:00Z), not 12:00Z
    expect(quietUntil(at('2026-11-01T02:00:00Z'), night, ['America/New_York'])).toEqual(at('2026-11-01T13:00:00Z'));
    // and forward in March: 08:00 on 8 March 2026 is EDT (12:00Z)
    expect(quietUntil(at('2026-03-08T03:00:00Z'), night, ['America/New_York'])).toEqual(at('2026-03-08T12:00:00Z'));
  });

  it('waits for the latest-ending zone when a country spans several, and is quiet if any zone is', () => {
    const zones = ['America/New_York', 'America/Los_Angeles'];
    // 22:00 EDT is 19:00 PDT: quiet in New York, so it waits until 08:00 in Los Angeles (15:00Z), outside both windows
    expect(quietUntil(at('2026-07-01T02:00:00Z'), night, zones)).toEqual(at('2026-07-01T15:00:00Z'));
    // 09:00 EDT is 06:00 PDT: quiet on the west coast only
    expect(quietUntil(at('2026-07-01T13:00:00Z'), night, zones)).toEqual(at('2026-07-01T15:00:00Z'));
    // 13:00 EDT, 10:00 PDT: open everywhere
    expect(quietUntil(at('2026-07-01T17:00:00Z'), night, zones)).toEqual(at('2026-07-01T17:00:00Z'));
  });

  it('changes nothing for a recipient whose zone is unknown', () => {
    expect(quietUntil(at('2026-07-01T02:00:00Z'), night, [])).toEqual(at('2026-07-01T02:00:00Z'));
  });
});

describe('zonesOf', () => {
  it("prefers the contact's timezone attribute, then the number's country", () => {
    expect(zonesOf({ phone: '+14155550123', attributes: { timezone: 'America/Chicago' } })).toEqual(['America/Chicago']);
    expect(zonesOf({ phone: '+442071838750', attributes: {} })).toEqual(['Europe/London']);
    const us = zonesOf({ phone: '+14155550123', attributes: { timezone: 'Mars/Olympus' } });
    expect(us).toEqual(expect.arrayContaining(['America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu']));
    expect(zonesOf({ phone: null, attributes: null })).toEqual([]);
  });
});
