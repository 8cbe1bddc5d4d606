/** What one request got from a fake provider's limit. */
export type FakeLimitAnswer = { isAllowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * A fake provider's request limit: a token bucket per key (an account, a sending number) as deep as one second's
 * requests, refilled continuously. `ratePerSecond` may change between requests; 0 means no limit.
 * @example const limit = createFakeRateLimit(5); if (!limit.take('account').isAllowed) answer 429
 */
export function createFakeRateLimit(ratePerSecond = 0) {
  // one per key a test uses: a handful
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    ratePerSecond,
    take(key = 'account'): FakeLimitAnswer {
      const rate = this.ratePerSecond;
      if (rate <= 0) return { isAllowed: true, limit: 0, remaining: 0, resetSeconds: 0 };
      const now = Date.now();
      const bucket = buckets.get(key) ?? { tokens: rate, at: now };
      bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate);
      bucket.at = now;
      buckets.set(key, bucket);
      const isAllowed = bucket.tokens >= 1;
      if (isAllowed) bucket.tokens -= 1;
      return { isAllowed, limit: rate, remaining: Math.floor(bucket.tokens), resetSeconds: Math.max(1, Math.ceil((1 - Math.min(1, bucket.tokens)) / rate)) };
    },
  };
}
export type FakeRateLimit = ReturnType<typeof createFakeRateLimit>;
