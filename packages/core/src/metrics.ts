// The metrics a process records, as interfaces of core's own: @tidings/runtime's Prometheus metrics (prom-client)
// fit them, so core names what it measures without depending on how it is exported.

type Labels<L extends string> = Partial<Record<L, string | number>>;

/** A counter with labels `L` (prom-client's Counter fits). */
export type Counter<L extends string = never> = { inc(labels: Labels<L>, value?: number): void; inc(value?: number): void };

/** A histogram with labels `L` (prom-client's Histogram fits); `startTimer` observes the seconds until its result is called. */
export type Histogram<L extends string = never> = {
  observe(labels: Labels<L>, value: number): void;
  startTimer(labels?: Labels<L>): (labels?: Labels<L>) => number;
};

/** One process's metrics: what core records, and what the apps record through the same dependencies. */
export type Metrics = {
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  providerCalls: Counter<'provider' | 'channel' | 'outcome'>;
  providerDeferrals: Counter<'provider' | 'reason'>;
  unconfirmedRepeats: Counter<'provider'>;
  databaseReads: Counter<'target' | 'reason'>;
  webhookDeliveries: Counter<'outcome'>;
  messages: Counter<'channel' | 'status'>;
  jobLatency: Histogram<'queue'>;
  jobDuration: Histogram<'queue' | 'outcome'>;
  broadcastRecipientsExpanded: Counter;
  broadcastMessagesCreated: Counter;
  retentionRowsRemoved: Counter<'table'>;
  retentionPartitionsDropped: Counter<'table'>;
};
