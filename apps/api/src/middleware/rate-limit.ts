import { AppError, takeRateLimit } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/**
 * Per-key limit over a rolling minute, and a ceiling for all of the organization's keys together (so a hundred keys
 * are not a hundred times the limit), counted in Redis so every replica shares them; a refused request never runs.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { config } = c.get('deps');
  const { keyId, orgId } = c.get('principal');
  const windowMs = config.rateLimitWindowMs;
  const result = await takeRateLimit(c.get('deps'), `${config.redisPrefix}:rate:${keyId}`, { limit: config.rateLimitPerMinute, windowMs });
  // Headers are set before the handler runs, so every answer carries them (errors too) and the response is built
  // once: a header added to a finished response makes Hono copy it into a new one.
  c.header('RateLimit-Limit', String(result.limit));
  c.header('RateLimit-Remaining', String(result.remaining));
  c.header('RateLimit-Reset', String(result.resetSeconds));
  if (!result.isAllowed) {
    c.header('Retry-After', String(result.resetSeconds));
    throw new AppError('TOO_MANY_REQUESTS', `Rate limit of ${result.limit} requests per minute exceeded; retry in ${result.resetSeconds} s`);
  }
  const organization = await takeRateLimit(c.get('deps'), `${config.redisPrefix}:rate:org:${orgId}`, { limit: config.orgRateLimitPerMinute, windowMs });
  if (!organization.isAllowed) {
    c.header('Retry-After', String(organization.resetSeconds));
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `The organization's rate limit of ${organization.limit} requests per minute, all its keys together, is exceeded; retry in ${organization.resetSeconds} s`,
    );
  }
  await next();
});
