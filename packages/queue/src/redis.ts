import IORedis, { type Redis } from 'ioredis';

export type { Redis };

/**
 * Opens a Redis connection fit for BullMQ (which needs `maxRetriesPerRequest: null`) and for plain commands.
 * @example const redis = createRedis(config.redisUrl);
 */
export function createRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, lazyConnect: options.lazyConnect ?? false });
}
