import { AppError, takeKeyRateLimit } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/**
 * The key rate limit (`takeKeyRateLimit`, the SMTP door's too): per key over a rolling minute and a ceiling for all of
 * the organization's keys together, counted in Redis so every replica shares them; a refused request never runs.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { key, refusal } = await takeKeyRateLimit(c.get('deps'), c.get('principal'));
  // Headers are set before the handler runs, so every answer carries them (errors too) and the response is built
  // once: a header added to a finished response makes Hono copy it into a new one.
  c.header('RateLimit-Limit', String(key.limit));
  c.header('RateLimit-Remaining', String(key.remaining));
  c.header('RateLimit-Reset', String(key.resetSeconds));
  if (refusal) {
    c.header('Retry-After', String(refusal.retryAfterSeconds));
    throw new AppError('TOO_MANY_REQUESTS', refusal.message);
  }
  await next();
});
