import { backoffDelayMs } from './backoff.ts';

describe('backoffDelayMs', () => {
  const options = { baseMs: 1000, maxMs: 60_000 };
  it('doubles per attempt, with jitter between half and all of it', () => {
    expect(backoffDelayMs(1, options, () => 0)).toBe(500);
    expect(backoffDelayMs(1, options, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, options, () => 0)).toBe(2000);
    expect(backoffDelayMs(3, options, () => 1)).toBe(4000);
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelayMs(4, options)));
    expect(spread.size).toBeGreaterThan(10);
    for (const delay of spread) {
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(8000);
    }
  });
  it('never waits longer than the cap', () => {
    expect(backoffDelayMs(30, options, () => 1)).toBe(60_000);
  });
});
