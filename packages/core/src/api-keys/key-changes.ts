import type { Logger } from '../logger.ts';
import { duplicateRedis, type Redis } from '@tidings/queue';

/** Tells every process that a key was disabled, enabled, rotated or deleted, so their key caches drop it at once. */
export type KeyChanges = {
  /** Announces a change to key `keyId`; best effort: when Redis cannot be reached the caches' TTL still applies. */
  publish(keyId: string): Promise<void>;
  /** Calls `listener` with the id of every changed key (from any process, this one included). */
  subscribe(listener: (keyId: string) => void): void;
  /** Closes the subscriber connection, if one was opened. */
  close(): Promise<void>;
};

/**
 * Key changes over Redis pub/sub on `<prefix>:api-key-changes`. The subscriber connection (a subscribed ioredis
 * client can do nothing else) is opened on the first `subscribe`, so processes that never authenticate never open it.
 * @example const changes = createKeyChanges(redis, 'tidings', logger); changes.subscribe((id) => cache.drop(id));
 */
export function createKeyChanges(redis: Redis, prefix: string, logger: Logger): KeyChanges {
  const channel = `${prefix}:api-key-changes`;
  const listeners: Array<(keyId: string) => void> = [];
  let subscriber: Redis | undefined;

  return {
    async publish(keyId) {
      await redis.publish(channel, keyId).catch((error: unknown) => logger.warn({ err: error, keyId }, 'could not announce an API key change'));
    },
    subscribe(listener) {
      listeners.push(listener);
      if (subscriber) return;
      subscriber = duplicateRedis(redis);
      subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis subscriber connection error'));
      subscriber.on('message', (from: string, keyId: string) => {
        if (from === channel) for (const notify of listeners) notify(keyId);
      });
      // ioredis subscribes again after a reconnect by itself
      subscriber.subscribe(channel).catch((error: unknown) => logger.warn({ err: error }, 'could not subscribe to API key changes'));
    },
    async close() {
      if (!subscriber) return;
      // QUIT waits for Redis to answer, which an unreachable Redis never does (the process would never exit)
      if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber?.disconnect());
      else subscriber.disconnect();
    },
  };
}
