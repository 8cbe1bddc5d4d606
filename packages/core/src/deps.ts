import type { Config } from '@tidings/config';
import type { Db } from '@tidings/db';
import type { Providers } from '@tidings/providers';
import type { Queues, Redis } from '@tidings/queue';
import type { Logger, Metrics, Readiness } from '@tidings/runtime';
import type { KeyChanges } from './api-keys/key-changes.ts';
import type { AuditActor } from './audit/audit-log.ts';
import type { Batchers } from './batchers.ts';
import type { RateLimits } from './rate-limit.ts';
import type { TemplateRenderer } from './templates/template-renderer.ts';

/** What the domain functions use, passed in so tests can build their own. */
export type Deps = {
  db: Db;
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
