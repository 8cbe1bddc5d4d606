import { backoffDelay, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter } from './retry.ts';

describe('retry timing', () => {
  it('doubles the backoff per attempt, with jitter between half and all of it, up to the cap', () => {
    expect(backoffDelay(0, DEFAULT_RETRY, () => 0)).toBe(250);
    expect(backoffDelay(0, DEFAULT_RETRY, () => 1)).toBe(500);
    expect(backoffDelay(2, DEFAULT_RETRY, () => 1)).toBe(2000);
    expect(backoffDelay(10, DEFAULT_RETRY, () => 1)).toBe(8000);
    expect(backoffDelay(10, DEFAULT_RETRY, () => 0)).toBe(4000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2026-11-23T08:00:00Z');
    expect(parseRetryAfter('Mon, 23 Nov 2026 08:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('retries 429 and 5xx, not other 4xx', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409].some(isRetryableStatus)).toBe(false);
  });
});
