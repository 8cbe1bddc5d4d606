// The environment's Postgres and Redis: where they are, and how they are used.
import { z } from 'zod';
import { booleanFromString } from './env-parts.ts';

/** The database settings: Postgres (the primary and its replicas) and Redis. */
export const databaseEnv = {
  DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/tidings'),
  /**
   * The password of DATABASE_URL's user, given apart so any characters work (it is percent-encoded into the URL);
   * replaces a password in the URL. Docker Compose passes POSTGRES_PASSWORD here.
   */
  DATABASE_PASSWORD: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Off for a pooler that cannot keep prepared statements (PgBouncer before 1.21 in transaction mode). */
  DATABASE_PREPARED_STATEMENTS: booleanFromString.default(true),
  /**
   * Streaming replicas that may serve reads which can lag (lists, exports, counts): one `postgresql://` URL or several,
   * comma-separated. DATABASE_PASSWORD applies to them as to DATABASE_URL. Unset: every read goes to the primary.
   */
  DATABASE_READ_URL: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    )
    .refine((urls) => urls.every((url) => URL.canParse(url) && /^postgres(ql)?:$/.test(new URL(url).protocol)), {
      message: 'must be postgresql:// URLs, comma-separated',
    })
    .default([]),
  /** A replica further behind the primary than this is left for the primary until it catches up. */
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /**
   * The longest one statement may run in a process that answers requests (the API, the dashboard): Postgres cancels
   * it past this, and the caller gets a 503 instead of a connection held for minutes. 0: no limit.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** The same for processes that run jobs (the workers, the command line): their statements are larger. 0: no limit. */
  DATABASE_JOB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  /** One Redis (`redis://`, `rediss://`) or a Redis Cluster: `redis+cluster://[user:password@]host:port,host:port`. */
  REDIS_URL: z
    .string()
    .refine((url) => (/^rediss?\+cluster:/.test(url) ? /^rediss?\+cluster:\/\/([^@/]*@)?[^,/:@]+:\d+(,[^,/:@]+:\d+)*\/?$/.test(url) : URL.canParse(url)), {
      message: 'must be a redis:// URL or redis+cluster://host:port,host:port',
    })
    .default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key and BullMQ queue, so several installs (or test runs) can share one Redis. */
  REDIS_PREFIX: z.string().min(1).max(64).default('tidings'),
  /** How long a request waits for Redis (rate limits, queueing after commit) before it answers 503 or leaves the work to the outbox. */
  REDIS_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(2000),
};
