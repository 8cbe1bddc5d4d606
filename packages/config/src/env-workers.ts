// The environment of the workers: webhook delivery, sending and broadcast fan-out, their sweeps and retention.
import { z } from 'zod';
import { booleanFromString, port } from './env-parts.ts';

/** The webhook-worker's settings, and the limits on webhook endpoints and replays. */
export const webhookEnv = {
  WEBHOOK_ALLOW_LOOPBACK: booleanFromString.default(false),
  /** Encrypts webhook endpoint secrets at rest. Required in production; the default is for local development only. */
  WEBHOOK_SECRET_KEY: z.string().min(16).optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(15_000),
  /** Delays before each retry of a failed delivery, `ms,ms,...`; after the last one the delivery is `failed`. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'expected ms,ms,...')
    .transform((v) => v.split(',').map(Number))
    .default([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
  /** An endpoint failing for this long without a single success is disabled. */
  WEBHOOK_DISABLE_AFTER_FAILING_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5 * 24 * 60 * 60 * 1000),
  WEBHOOK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  /** Deliveries of the bulk lane (webhook.replay) in flight per webhook-worker, beside WEBHOOK_WORKER_CONCURRENCY's. */
  WEBHOOK_WORKER_BULK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(5),
  /** Deliveries to one endpoint in flight at once, over every webhook-worker: a hanging endpoint holds only these. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(5),
  /** Webhook endpoints an organization may have (each multiplies every event it subscribes to). */
  WEBHOOK_ENDPOINTS_PER_ORG: z.coerce.number().int().min(1).max(1000).default(20),
  /** Deliveries one webhook.replay may re-deliver; a wider range is refused (400) and is to be narrowed. */
  WEBHOOK_REPLAY_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** BullMQ lock and stalled-job check of the webhook-worker: how fast a crashed worker's deliveries are taken over. */
  WEBHOOK_WORKER_LOCK_MS: z.coerce.number().int().min(200).default(30_000),
  WEBHOOK_WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** Where the webhook-worker serves /metrics, /healthz and /readyz (0: any free port). */
  WEBHOOK_WORKER_METRICS_PORT: port.default(3003),
};

/** The send-worker's settings: its queues, the broadcast fan-out, sending and retrying, the outbox, sweeps, retention. */
export const sendWorkerEnv = {
  // ---- send-worker
  /**
   * Which queues this send-worker consumes: the channel queues and `broadcasts` (the fan-out), so operators can run
   * email-only, sms-only and fan-out-only replicas.
   */
  SEND_WORKER_QUEUES: z
    .string()
    .regex(/^(email|sms|broadcasts)(,(email|sms|broadcasts))*$/, 'expected a comma list of email, sms, broadcasts')
    .default('email,sms,broadcasts')
    .transform((v) => [...new Set(v.split(','))] as ('email' | 'sms' | 'broadcasts')[]),
  /**
   * Broadcast fan-out jobs (each writes one chunk of messages) in flight per send-worker that consumes `broadcasts`.
   * A chunk spends most of its time waiting for Postgres, Redis and its render threads: on 2 cores 8 in flight created
   * 10,100-10,400 messages/s against 9,000-9,700 with 4 (bench:broadcast, 100,000 contacts).
   */
  BROADCAST_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(50).default(8),
  /** Contacts per fan-out job: one multi-row statement and one addBulk each. */
  BROADCAST_CHUNK_SIZE: z.coerce.number().int().min(1).max(5000).default(1000),
  /**
   * Broadcast messages of one organization waiting in the bulk lane (queued or sending) beyond which its fan-out
   * writes no further chunk until they drain: another organization's broadcast waits behind at most this many.
   */
  BROADCAST_ORG_WINDOW: z.coerce.number().int().min(1).max(1_000_000).default(5000),
  /**
   * Contacts per render task within a chunk: each task runs on a render thread within one TEMPLATE_RENDER_BUDGET_MS,
   * so a normal template renders a task well within it and a hostile one is stopped after one budget.
   */
  BROADCAST_RENDER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(50),
  SEND_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  /**
   * Sends of the bulk lane (broadcast messages) in flight per send-worker, in workers of their own beside the
   * transactional lane's SEND_WORKER_CONCURRENCY; unset: the same number, or 400 when Resend sends email (four batches
   * of 100 gathered from the sends in flight) and 100 when SES does (their bulk sends wait in line for the provider's pace).
   */
  SEND_WORKER_BULK_CONCURRENCY: z.coerce.number().int().min(1).max(500).optional(),
  /** Provider attempts per message before it is `failed` (transient errors only; permanent ones fail at once). */
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  SEND_BACKOFF_BASE_MS: z.coerce.number().int().min(1).default(2000),
  SEND_BACKOFF_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 60 * 1000),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /** BullMQ lock and stalled-job check: how soon a job of a crashed worker runs again. */
  SEND_WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(200).default(30_000),
  SEND_WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(200).default(30_000),
  SEND_WORKER_MAX_STALLED_COUNT: z.coerce.number().int().min(0).default(5),
  /** Where the send-worker serves /metrics, /healthz and /readyz (0: any free port). */
  SEND_WORKER_METRICS_PORT: port.default(3002),
  OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  /** How long an outbox row waits for its own request's enqueue before the relay takes it. */
  OUTBOX_RELAY_GRACE_MS: z.coerce.number().int().min(0).default(5000),
  /**
   * A message or webhook delivery unfinished this long (a scheduled message: this long past its time) whose job Redis
   * lost is enqueued again by the workers' sweeps, which run every half of it (at most every minute).
   */
  STRANDED_JOB_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  /** How long after the sandbox "sends" that it reports delivered / bounced / undelivered. */
  SANDBOX_OUTCOME_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  /** Days messages and their status history are kept; 0 keeps them forever. Broadcast counts are kept regardless. */
  MESSAGE_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
  /** Days finished webhook deliveries and their attempts are kept; 0 keeps them forever. */
  WEBHOOK_ATTEMPT_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /** Days audit events (who changed what) are kept; 0 keeps them forever. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(365),
};
