import { AppError, takeRateLimit } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/** Per-key limit over a rolling minute, counted in Redis so every replica shares it; a refused request never runs. */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { redis, config } = c.get('deps');
  const result = await takeRateLimit(redis, `${config.redisPrefix}:rate:${c.get('principal').keyId}`, {
    limit: config.rateLimitPerMinute,
    windowMs: config.rateLimitWindowMs,
  });
  // Headers are set before the handler runs, so every answer carries them (errors too) and the response is built
  // once: a header added to a finished response makes Hono copy it into a new one.
  c.header('RateLimit-Limit', String(result.limit));
  c.header('RateLimit-Remaining', String(result.remaining));
  c.header('RateLimit-Reset', String(result.resetSeconds));
  if (!result.isAllowed) {
    c.header('Retry-After', String(result.resetSeconds));
    throw new AppError('TOO_MANY_REQUESTS', `Rate limit of ${result.limit} requests per minute exceeded; retry in ${result.resetSeconds} s`);
  }
  await next();
});
