import type { Config } from '@tidings/config';
import type { Db } from '@tidings/db';
import type { Queues, Redis } from '@tidings/queue';
import type { Logger, Metrics, Readiness } from '@tidings/runtime';
import type { TemplateRenderer } from './templates/template-renderer.ts';

/** What the domain functions use, passed in so tests can build their own. */
export type Deps = {
  db: Db;
  redis: Redis;
  /** Every BullMQ queue, on `redis`. */
  queues: Queues;
  config: Config;
  logger: Logger;
  /** This process's Prometheus metrics. */
  metrics: Metrics;
  /** Whether Postgres and Redis answer (`/readyz`). */
  readiness(): Promise<Readiness>;
  /** Renders templates on worker threads, within a time budget per request. */
  renderer: TemplateRenderer;
  /** The current time; tests may pin it. */
  now: () => Date;
};
