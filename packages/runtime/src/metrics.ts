import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { within } from '@tidings/telemetry';

/**
 * Look-ups the scrape-time gauges make; the process that owns the stores passes them in (the bootstrap's `openDeps`), so
 * this package never touches Postgres or Redis itself.
 */
export type MetricSources = {
  /** Job counts by state (`waiting`, `active`, ...) of each queue, by queue name. */
  queueJobCounts(): Promise<Record<string, Record<string, number>>>;
  /** Outbox rows not yet moved to Redis. */
  outboxBacklog(): Promise<number>;
  /** Each provider's circuit in this process (`closed`, `open`, `half_open`). */
  circuitStates?(): Record<string, 'closed' | 'open' | 'half_open'>;
  /** Each read replica as last checked: its lag (ms; null while it does not answer) and whether reads go to it. */
  replicaStates?(): { name: string; lagMs: number | null; usable: boolean }[];
  /** Each paced provider account (the email accounts, and a bounded number of SMS numbers): its rate, use and deferrals a second. */
  providerPace?(): Promise<{ provider: string; account: string; ratePerSecond: number; usePerSecond: number; deferralsPerSecond: number }[]>;
};

// A scrape-time look-up that takes longer leaves its gauge out of this scrape rather than hold up the rest.
const LOOKUP_TIMEOUT_MS = 2000;

/**
 * The Prometheus metrics of one process. Gauges that need a look at Postgres or Redis (queue depth, outbox backlog)
 * are read when scraped, so they cost nothing between scrapes; while their store is unreachable they are absent, and
 * the rest of the scrape still answers (the outbox backlog matters most while Redis is down).
 * @example const metrics = createMetrics({ queueJobCounts, outboxBacklog, circuitStates }); metrics.providerCalls.inc({ provider: 'resend', channel: 'email', outcome: 'sent' });
 */
export function createMetrics(sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpRequestDuration = new Histogram({
    name: 'tidings_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const providerCalls = new Counter({
    name: 'tidings_provider_calls_total',
    help: 'Calls to email/SMS providers by provider, channel and outcome (sent, retryable_error, permanent_error, rate_limited)',
    labelNames: ['provider', 'channel', 'outcome'] as const,
    registers: [registry],
  });
  const providerDeferrals = new Counter({
    name: 'tidings_provider_deferrals_total',
    help: "Sends that waited for a provider's pace (our limiter or the provider's 429) instead of failing, by provider and reason",
    labelNames: ['provider', 'reason'] as const,
    registers: [registry],
  });
  const unconfirmedRepeats = new Counter({
    name: 'tidings_provider_unconfirmed_repeats_total',
    help: 'Sends repeated after an earlier call to a provider without idempotency keys ended unanswered (a crash): the recipient may get it twice',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'tidings_provider_circuit_state',
    help: "Each provider's circuit in this process: 0 closed, 1 open (skipped while cooling down), 2 half-open (next call decides)",
    labelNames: ['provider'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const codes = { closed: 0, open: 1, half_open: 2 } as const;
      for (const [provider, state] of Object.entries(sources.circuitStates?.() ?? {})) this.set({ provider }, codes[state]);
    },
  });
  new Gauge({
    name: 'tidings_db_replica_lag_seconds',
    help: 'How far each read replica was behind the primary at its last check; absent while it does not answer',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, lagMs } of sources.replicaStates?.() ?? []) if (lagMs !== null) this.set({ replica: name }, lagMs / 1000);
    },
  });
  new Gauge({
    name: 'tidings_db_replica_usable',
    help: 'Whether reads go to each replica (1) or leave it for the primary (0: lagging past DATABASE_READ_MAX_LAG_MS, or not answering)',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, usable } of sources.replicaStates?.() ?? []) this.set({ replica: name }, usable ? 1 : 0);
    },
  });
  const databaseReads = new Counter({
    name: 'tidings_db_reads_total',
    help: 'Reads that may go to a replica, by where they ran (replica, primary) and why the primary ran one (unavailable: no replica usable; failed: the replica tried failed it)',
    labelNames: ['target', 'reason'] as const,
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'tidings_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, disabled; refused: the URL was not allowed; parked: its endpoint was at WEBHOOK_ENDPOINT_CONCURRENCY, no request made)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const messages = new Counter({
    name: 'tidings_messages_total',
    help: 'Messages that reached their final outcome, by channel and status (delivered, bounced, undelivered, failed, suppressed)',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
  });
  const jobLatency = new Histogram({
    name: 'tidings_job_latency_seconds',
    help: 'Wait from a job becoming due (added, or its delay over) to a worker starting it, per queue; first runs only',
    labelNames: ['queue'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600],
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'tidings_job_duration_seconds',
    help: 'How long one run of a job took, per queue and outcome (completed, delayed: parked to run again, failed)',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [registry],
  });
  const broadcastRecipientsExpanded = new Counter({
    name: 'tidings_broadcast_recipients_expanded_total',
    help: 'Broadcast recipients expanded by the fan-out (contacts read for a chunk written for the first time)',
    registers: [registry],
  });
  const broadcastMessagesCreated = new Counter({
    name: 'tidings_broadcast_messages_created_total',
    help: 'Messages created by broadcast fan-out (queued, or failed when the rendering failed)',
    registers: [registry],
  });
  const retentionRowsRemoved = new Counter({
    name: 'tidings_retention_rows_removed_total',
    help: 'Rows retention removed, per table (deleted in batches or with a dropped partition)',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  const retentionPartitionsDropped = new Counter({
    name: 'tidings_retention_partitions_dropped_total',
    help: 'Monthly partitions retention dropped whole, per table',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'tidings_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const result = await within(() => sources.queueJobCounts(), LOOKUP_TIMEOUT_MS);
      if (!result.ok) return;
      for (const [queue, counts] of Object.entries(result.value)) {
        for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
      }
    },
  });
  // the provider pace, read once per scrape for its three gauges (each gauge's collect runs in the same scrape)
  let paceRead: { at: number; value: Promise<Awaited<ReturnType<NonNullable<MetricSources['providerPace']>>> | null> } | null = null;
  const providerPace = () => {
    if (!paceRead || Date.now() - paceRead.at > 1000) {
      const value = within(() => sources.providerPace?.() ?? Promise.resolve([]), LOOKUP_TIMEOUT_MS).then((r) => (r.ok ? r.value : null));
      paceRead = { at: Date.now(), value };
    }
    return paceRead.value;
  };
  const paceGauges = [
    ['tidings_provider_rate_per_second', 'Each paced provider account’s configured rate (requests a second; account: the provider, or an SMS number)', 'ratePerSecond'],
    ['tidings_provider_use_per_second', 'Calls each paced provider account took a second over the last 10 s, across every send-worker', 'usePerSecond'],
    ['tidings_provider_deferrals_per_second', 'Sends deferred to a later slot of each paced provider account a second over the last 10 s', 'deferralsPerSecond'],
  ] as const;
  for (const [name, help, field] of paceGauges) {
    new Gauge({
      name,
      help,
      labelNames: ['provider', 'account'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const a of (await providerPace()) ?? []) this.set({ provider: a.provider, account: a.account }, a[field]);
      },
    });
  }
  new Gauge({
    name: 'tidings_outbox_backlog',
    help: 'Outbox rows not yet moved to Redis (grows while Redis is unreachable)',
    registers: [registry],
    async collect() {
      this.reset();
      const result = await within(() => sources.outboxBacklog(), LOOKUP_TIMEOUT_MS);
      if (result.ok) this.set(result.value);
    },
  });

  return {
    registry,
    httpRequestDuration,
    providerCalls,
    providerDeferrals,
    unconfirmedRepeats,
    databaseReads,
    webhookDeliveries,
    messages,
    jobLatency,
    jobDuration,
    broadcastRecipientsExpanded,
    broadcastMessagesCreated,
    retentionRowsRemoved,
    retentionPartitionsDropped,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
