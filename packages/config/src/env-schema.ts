// The environment variables an install reads, with their defaults and what each means: the one schema of them.
import { z } from 'zod';

export const EMAIL_PROVIDER_NAMES = ['resend', 'smtp', 'ses', 'sandbox'] as const;
export const SMS_PROVIDER_NAMES = ['telnyx', 'twilio', 'sandbox'] as const;
export type EmailProviderName = (typeof EMAIL_PROVIDER_NAMES)[number];
export type SmsProviderName = (typeof SMS_PROVIDER_NAMES)[number];

/** A comma list of distinct provider names out of `names`. */
function providerList<const T extends readonly string[]>(names: T) {
  return z
    .string()
    .transform((v) => v.split(',').map((name) => name.trim()))
    .pipe(
      z
        .array(z.enum(names))
        .min(1)
        .refine((list) => new Set(list).size === list.length, 'a provider is listed twice'),
    );
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false; // not a valid pattern: the refinement reports it
  }
}

/** The lowest PASSWORD_HASH_COST production takes, and the default: lower is only for the test suites' speed. */
export const PASSWORD_HASH_COST_PRODUCTION = 15;
const booleanFromString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number().int().min(0).max(65535);

/** Every setting Tidings reads from the environment, with the local defaults `npm start` runs on. */
export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
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
  API_PORT: port.default(3000),
  /** The address every ops port (/metrics, /healthz, /readyz) listens on: this machine only unless told (the image: 0.0.0.0). */
  OPS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Where the API serves /metrics (and /healthz, /readyz) for operators, apart from its public port (0: any free port). */
  API_METRICS_PORT: port.default(3004),
  DASHBOARD_PORT: port.default(3001),
  /** Where the dashboard serves /metrics (and /healthz, /readyz) for operators, apart from its public port (0: any free port). */
  DASHBOARD_METRICS_PORT: port.default(3005),
  /** Where the API is reached from outside, for links and printed examples. */
  PUBLIC_API_URL: z.url().default('http://localhost:3000'),
  /** Where people reach the dashboard; an https:// address (or NODE_ENV=production) makes its cookies Secure. */
  PUBLIC_DASHBOARD_URL: z.url().default('http://localhost:3001'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  /** Requests per minute of all of an organization's keys together; 10x RATE_LIMIT_PER_MINUTE when unset. */
  ORG_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).optional(),
  /** The rolling window the rate limit counts over: a minute, shorter only so tests need not wait one out. */
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** How long a key lookup is cached in process; a disabled key stops working within this time. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(2000),
  /** Failed authentications per minute per client address; past it, 429 until the minute is over. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  /** Behind a reverse proxy: the client address is the last X-Forwarded-For entry (the one the proxy added). */
  TRUST_PROXY: booleanFromString.default(false),
  /** API keys an organization may have (not counting deleted ones). */
  API_KEYS_PER_ORG_MAX: z.coerce.number().int().min(1).default(100),
  /**
   * How long an Idempotency-Key stays reserved for a request that stops renewing it (its process died): the request
   * renews it every third of this while it runs, so a crashed one's key is free again within this time.
   */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(300).max(600_000).default(10_000),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** The largest body of message.send and message.sendBatch, which may carry base64 attachments (40 MiB decoded). */
  SEND_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(48 * 1024 * 1024),
  /** Dashboard sign-in attempts per 15 minutes per email address (five times as many per client address). */
  SIGN_IN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  /** Time every template render of one request (a send, a batch, a preview) may take together; past it, a 400. */
  TEMPLATE_RENDER_BUDGET_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  /** Worker threads per process that render templates, off the event loop. */
  TEMPLATE_RENDER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  /** Tags and outputs (`{% %}`, `{{ }}`) one part of a template may hold; past it template.create/update is a 400. */
  TEMPLATE_MAX_TAGS: z.coerce.number().int().min(10).max(100_000).default(5_000),
  RESEND_API_KEY: z.string().min(1).optional(),
  RESEND_BASE_URL: z.url().optional(),
  TELNYX_API_KEY: z.string().min(1).optional(),
  TELNYX_BASE_URL: z.url().optional(),
  TELNYX_PUBLIC_KEY: z.string().min(1).optional(),
  RESEND_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Numbers ordered through Tidings are put on this Telnyx messaging profile, so they can send at once. */
  TELNYX_MESSAGING_PROFILE_ID: z.string().min(1).optional(),
  // ---- providers: which ones, in which order, and their settings
  /** Email providers in the order they are tried (`resend`, `smtp`, `ses`, `sandbox`); see providerLists below. */
  EMAIL_PROVIDERS: providerList(EMAIL_PROVIDER_NAMES).optional(),
  /** SMS providers in the order they are tried (`telnyx`, `twilio`, `sandbox`). */
  SMS_PROVIDERS: providerList(SMS_PROVIDER_NAMES).optional(),
  /** `smtps://user:pass@host:465` (TLS) or `smtp://user:pass@host:587` (STARTTLS when the server offers it). */
  SMTP_URL: z
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), 'expected smtp:// or smtps://')
    .optional(),
  /** Connections kept open to the SMTP server. */
  SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  // ---- the providers' pace: one shared limiter per provider account (see docs/sending.md)
  /** Requests per second to Resend, shared by every send-worker (Resend's default limit is 2 per team). */
  RESEND_RATE_PER_SECOND: z.coerce.number().positive().max(10_000).default(2),
  /** Emails per second through SES; unset: the account's MaxSendRate (GetAccount), read at the first send and every 10 minutes. */
  SES_MAX_SEND_RATE: z.coerce.number().positive().max(100_000).optional(),
  /** Emails per second through the SMTP relay; unset: not paced. */
  SMTP_RATE_PER_SECOND: z.coerce.number().positive().max(100_000).optional(),
  /** A bulk send waits in the worker for its provider's slot at most this long; beyond, it waits as a delayed job. */
  PACE_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  SES_REGION: z.string().min(1).optional(),
  SES_ACCESS_KEY_ID: z.string().min(1).optional(),
  SES_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Another SES endpoint (a VPC endpoint, or a local fake in tests); the region's public one when unset. */
  SES_ENDPOINT: z.url().optional(),
  SES_CONFIGURATION_SET: z.string().min(1).optional(),
  /** Where SNS certificates and subscription confirmations may be fetched from: a regular expression over the URL. */
  SNS_URL_PATTERN: z.string().min(1).refine(isRegExp, 'expected a regular expression').default('^https://sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?/'),
  /** Only notifications of this SNS topic are accepted, when set. */
  SES_SNS_TOPIC_ARN: z.string().min(1).optional(),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Another Twilio API origin (a local fake in tests); api.twilio.com when unset. */
  TWILIO_BASE_URL: z.url().optional(),
  /** Consecutive failures after which a provider is skipped while another one is available. */
  PROVIDER_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** How long a provider is skipped before it is tried again. */
  PROVIDER_CIRCUIT_COOLDOWN_MS: z.coerce.number().int().min(100).default(30_000),
  /** The answers to an inbound SMS STOP, START and HELP (or INFO) of every number without its own `replies`; unset:
   * a default naming the organization. */
  SMS_STOP_REPLY: z.string().trim().min(1).max(1600).optional(),
  SMS_START_REPLY: z.string().trim().min(1).max(1600).optional(),
  SMS_HELP_TEXT: z.string().trim().min(1).max(1600).optional(),
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
  /** A segment's cached contactCount older than this is counted again in the background when read (reads never count). */
  SEGMENT_COUNT_MAX_AGE_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
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
  // ---- SMTP submission (apps/smtp): apps that speak only SMTP send with an API key as the password
  /** Submission with STARTTLS (587 in the image). */
  SMTP_SUBMISSION_PORT: port.default(2587),
  /** Submission over implicit TLS (465 in the image). */
  SMTPS_PORT: port.default(2465),
  /** Where the SMTP app serves /metrics, /healthz and /readyz (0: any free port). */
  SMTP_METRICS_PORT: port.default(3006),
  /** The TLS certificate and its key, PEM text or a path to a PEM file; unset outside production: a self-signed pair made at start. */
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  /** The host name mail clients connect to, shown with the SMTP settings; the host of PUBLIC_API_URL when unset. */
  SMTP_PUBLIC_HOST: z.string().min(1).max(253).optional(),
  /** Open connections of both ports together, and of one client address; past them a new connection gets 421. */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(1000),
  SMTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Mails received at once (MAIL FROM to the answer of DATA) per API key and per client address: past them MAIL FROM gets 451. */
  SMTP_MAX_MAILS_PER_KEY: z.coerce.number().int().min(1).max(1000).default(8),
  SMTP_MAX_MAILS_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(16),
  /** Content bytes of one API key's mails being received and parsed at once; the mail that would pass it gets 452 and its connection ends. */
  SMTP_MAX_RECEIVING_BYTES_PER_KEY: z.coerce
    .number()
    .int()
    .min(1024)
    .default(48 * 1024 * 1024),
  /** The whole of one command line, from the previous answer to its end, and the whole of one DATA content: past them 421 and the connection ends. */
  SMTP_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  SMTP_DATA_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  /** MIME parts one mail may hold (containers included); past it 554. */
  SMTP_MAX_MIME_PARTS: z.coerce.number().int().min(2).max(10_000).default(100),
  /** Resolvers for domain verification, `host:port,...`; the system's when unset. */
  DNS_SERVERS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'expected host:port,host:port')
    .transform((v) => v.split(','))
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  /**
   * The cost of password hashes (scrypt's N is 2 to this power, about 32 MiB and tens of milliseconds at 15): at least
   * 15 in production. Only new hashes take it; each stored hash carries its own, so it can change at any time.
   */
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(16).default(PASSWORD_HASH_COST_PRODUCTION),
  /** Signs unsubscribe links (HMAC-SHA256). Required in production; the default is for local development only. */
  UNSUBSCRIBE_SECRET: z.string().min(16).optional(),
  /** Keys the hash of one-time codes (HMAC-SHA256); the unsubscribe secret when unset. Changing it voids pending codes. */
  VERIFY_SECRET: z.string().min(16).optional(),
  /** Live SMS per hour to one destination prefix (`+CC NNN`) before 429; tighter where codes sent there go unused. */
  SMS_PREFIX_LIMIT_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** Provider callbacks (POST /v1/provider-events/...) per minute per client address, counted before any work. */
  PROVIDER_EVENT_RATE_LIMIT: z.coerce.number().int().min(1).default(3000),
  /**
   * Tracking hits (GET /o/ opens, GET /c/ clicks, each counted apart) per minute per client address. Generous: a mail
   * provider's image proxy fetches the pixels of many readers from a few addresses.
   */
  TRACKING_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** Unsubscribe page requests (GET and POST /u/{token}) per minute per client address. */
  UNSUBSCRIBE_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
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
});
