import type { Config } from '@tidings/config';
import type { Db, Reads } from '@tidings/db';
import type { Providers } from '@tidings/providers';
import type { Queues, Redis } from '@tidings/queue';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { KeyChanges } from './api-keys/key-changes.ts';
import type { AuditActor } from './audit/audit-actor.ts';
import type { RateLimits } from './rate-limit.ts';
import type { TemplateRenderer } from './templates/template-renderer.ts';

/** The answer of `/readyz`: whether each store the process needs answered, by name. */
export type Readiness = { status: 'ready' | 'not ready'; checks: Record<string, 'ok' | 'unreachable'> };

/**
 * The statements a process's concurrent calls share (group commit), declared here and completed by batchers.ts
 * (declaration merging): they are built from these very dependencies, so deps.ts names none of the modules that use
 * it, and no import circle runs through it.
 */
// biome-ignore lint/suspicious/noEmptyInterface: its members are declared by batchers.ts
export interface Batchers {}

/**
 * What a send does beyond the message itself (transforms of what a provider is given, steps after a failure),
 * declared here and completed by messages/send-attempt.ts as Batchers is: the modules that write them import the
 * dependencies, so deps.ts names none of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: its members are declared by messages/send-attempt.ts
export interface SendingExtensions {}

/** What the domain functions use, passed in so tests can build their own. */
export type Deps = {
  db: Db;
  /** Reads that may lag behind the last write (lists, exports, counts): a replica within the lag bound, else `db`. */
  reads: Reads;
  redis: Redis;
  /** Every BullMQ queue, on `redis`. */
  queues: Queues;
  config: Config;
  logger: Logger;
  /** Every email, SMS, domain and number provider, built once from `config` (tests may pass their own). */
  providers: Providers;
  /** This process's Prometheus metrics. */
  metrics: Metrics;
  /** Whether Postgres and Redis answer (`/readyz`). */
  readiness(): Promise<Readiness>;
  /** Renders templates on worker threads, within a time budget per request. */
  renderer: TemplateRenderer;
  /** Announces API key changes to every process's key cache (Redis pub/sub). */
  keyChanges: KeyChanges;
  /** The statements concurrent calls share (group commit), made and closed with the rest. */
  batchers: Batchers;
  /** What a send does beyond the message itself: transforms of what a provider is given, steps after a failure. */
  sending: SendingExtensions;
  /** The auto-pipelined Redis connection rate limits are taken on. */
  rateLimits: RateLimits;
  /** The current time; tests may pin it. */
  now: () => Date;
  /**
   * Who makes the changes these deps carry out, for the audit log: set per request by the API (the key) and the
   * dashboard (the person), and by the CLI. Absent in the workers, whose own changes are not audited.
   */
  actor?: AuditActor;
};
