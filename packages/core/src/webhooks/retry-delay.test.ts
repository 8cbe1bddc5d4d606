import { MAX_RETRY_AFTER_MS, retryDelayMs } from './delivery-attempt.ts';

const schedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

describe('retryDelayMs', () => {
  it('follows the schedule of API.md, then gives up', () => {
    expect(schedule.map((_, i) => retryDelayMs(schedule, i + 1, null))).toEqual(schedule);
    expect(retryDelayMs(schedule, 8, null)).toBeNull();
  });

  it('honours a longer Retry-After, never a shorter one, and caps it at 24 h', () => {
    expect(retryDelayMs(schedule, 1, 60_000)).toBe(60_000);
    expect(retryDelayMs(schedule, 2, 60_000)).toBe(300_000);
    expect(retryDelayMs(schedule, 1, 10 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(schedule, 8, 60_000)).toBeNull();
  });
});
