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

const booleanFromString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number().int().min(0).max(65535);

/** Every setting Tidings reads from the environment, with the local defaults `npm start` runs on. */
const EnvSchema = z.object({
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
  /** Signs unsubscribe links (HMAC-SHA256). Required in production; the default is for local development only. */
  UNSUBSCRIBE_SECRET: z.string().min(16).optional(),
  /** Provider callbacks (POST /v1/provider-events/...) per minute per client address, counted before any work. */
  PROVIDER_EVENT_RATE_LIMIT: z.coerce.number().int().min(1).default(3000),
  /** Unsubscribe page requests (GET and POST /u/{token}) per minute per client address. */
  UNSUBSCRIBE_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  SEND_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  /**
   * Sends of the bulk lane (broadcast messages) in flight per send-worker, in workers of their own beside the
   * transactional lane's SEND_WORKER_CONCURRENCY; unset: the same number.
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

export type Config = {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  databasePoolSize: number;
  databasePreparedStatements: boolean;
  /** statement_timeout of request-serving processes, and of job-running ones (ms; 0: none). */
  statementTimeoutMs: { requests: number; jobs: number };
  redisUrl: string;
  redisPrefix: string;
  apiPort: number;
  opsHost: string;
  apiMetricsPort: number;
  dashboardPort: number;
  dashboardMetricsPort: number;
  publicApiUrl: string;
  publicDashboardUrl: string;
  /**
   * Whether dashboard cookies carry `Secure`: in production or when the dashboard's public address is https. Decided
   * from configuration, never from a request's Host or scheme, which a proxy may rewrite.
   */
  dashboardSecureCookies: boolean;
  rateLimitPerMinute: number;
  rateLimitWindowMs: number;
  /** ORG_RATE_LIMIT_PER_MINUTE: the ceiling of all of an organization's keys together, so more keys are not more requests. */
  orgRateLimitPerMinute: number;
  apiKeyCacheTtlMs: number;
  authFailureLimit: number;
  trustProxy: boolean;
  apiKeysPerOrgMax: number;
  idempotencyLeaseMs: number;
  bodyLimitBytes: number;
  sendBodyLimitBytes: number;
  signInRateLimit: number;
  /** PROVIDER_EVENT_RATE_LIMIT: provider callbacks per minute per client address. */
  providerEventRateLimit: number;
  templateRender: { budgetMs: number; threads: number; maxTags: number };
  resend: { apiKey?: string; baseUrl?: string; webhookSecret?: string };
  telnyx: { apiKey?: string; baseUrl?: string; publicKey?: string; messagingProfileId?: string };
  smtp: { url?: string; poolSize: number };
  /**
   * SMTP submission (apps/smtp): its ports, TLS pair (unset: self-signed at start, refused in production), the host
   * clients are told to use, and whether AUTH is allowed before TLS (everywhere but production).
   */
  smtpSubmission: {
    port: number;
    tlsPort: number;
    metricsPort: number;
    tlsCert?: string;
    tlsKey?: string;
    publicHost: string;
    allowAuthWithoutTls: boolean;
  };
  ses: { region?: string; accessKeyId?: string; secretAccessKey?: string; endpoint?: string; configurationSet?: string; snsUrlPattern: string; snsTopicArn?: string };
  twilio: { accountSid?: string; authToken?: string; baseUrl?: string };
  /** The providers live messages go through, in order of preference (test keys always use the sandbox). */
  providerLists: { email: EmailProviderName[]; sms: SmsProviderName[] };
  circuit: { failures: number; cooldownMs: number };
  /** SMS_STOP_REPLY, SMS_START_REPLY and SMS_HELP_TEXT: the install's answers to the SMS keywords. */
  smsReplies: { stop?: string; start?: string; help?: string };
  webhookAllowLoopback: boolean;
  /** See STRANDED_JOB_AFTER_MS; `strandedSweepEveryMs` is how often the sweeps run. */
  strandedJobAfterMs: number;
  strandedSweepEveryMs: number;
  /** MESSAGE_RETENTION_DAYS, WEBHOOK_ATTEMPT_RETENTION_DAYS and AUDIT_RETENTION_DAYS (0: forever). */
  retention: { messageDays: number; webhookAttemptDays: number; auditDays: number };
  webhooks: {
    secretKey: string;
    timeoutMs: number;
    retryScheduleMs: number[];
    disableAfterFailingMs: number;
    workerConcurrency: number;
    bulkWorkerConcurrency: number;
    endpointConcurrency: number;
    endpointsPerOrg: number;
    replayMax: number;
    lockMs: number;
    stalledIntervalMs: number;
    workerMetricsPort: number;
  };
  /** SEGMENT_COUNT_MAX_AGE_MS. */
  segmentCountMaxAgeMs: number;
  dnsServers?: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  broadcasts: { workerConcurrency: number; chunkSize: number; orgWindow: number; renderBatchSize: number; unsubscribeSecret: string; unsubscribeRateLimit: number };
  sendWorker: {
    queues: ('email' | 'sms' | 'broadcasts')[];
    concurrency: number;
    bulkConcurrency: number;
    maxAttempts: number;
    backoffBaseMs: number;
    backoffMaxMs: number;
    providerTimeoutMs: number;
    lockDurationMs: number;
    stalledIntervalMs: number;
    maxStalledCount: number;
    metricsPort: number;
    outboxRelayIntervalMs: number;
    outboxRelayGraceMs: number;
    sandboxOutcomeDelayMs: number;
  };
};

/** Encrypts webhook secrets when WEBHOOK_SECRET_KEY is unset: local development only (production refuses to start). */
const LOCAL_WEBHOOK_SECRET_KEY = 'tidings-local-development-webhook-secret-key';
/** Signs unsubscribe links when UNSUBSCRIBE_SECRET is unset: local development only (production refuses to start). */
const LOCAL_UNSUBSCRIBE_SECRET = 'tidings-local-development-unsubscribe-secret';

// Values of these variables are never repeated in an error (keys, secrets, and URLs that may carry a password).
const SECRET_NAME = /KEY|SECRET|PASSWORD|URL/;

/** One line per problem: the variable, what is wrong in words, and the value given (unless it may be a secret). */
function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string | undefined>): string {
  const name = String(issue.path[0] ?? '');
  const problem = issue.code === 'invalid_type' && issue.expected === 'number' ? 'expected a number' : issue.message;
  const value = env[name];
  const given = value === undefined ? '' : SECRET_NAME.test(name) ? ' (value not shown)' : ` (got ${JSON.stringify(value)})`;
  return `  ${issue.path.join('.')}: ${problem}${given}`;
}

/** Each listed provider needs its settings; a list naming one without them fails at start-up, not at the first send. */
function providerSettingsMissing(e: z.infer<typeof EnvSchema>): string[] {
  const needs: Record<string, [string, unknown][]> = {
    resend: [['RESEND_API_KEY', e.RESEND_API_KEY]],
    smtp: [['SMTP_URL', e.SMTP_URL]],
    ses: [
      ['SES_REGION', e.SES_REGION],
      ['SES_ACCESS_KEY_ID', e.SES_ACCESS_KEY_ID],
      ['SES_SECRET_ACCESS_KEY', e.SES_SECRET_ACCESS_KEY],
    ],
    telnyx: [['TELNYX_API_KEY', e.TELNYX_API_KEY]],
    twilio: [
      ['TWILIO_ACCOUNT_SID', e.TWILIO_ACCOUNT_SID],
      ['TWILIO_AUTH_TOKEN', e.TWILIO_AUTH_TOKEN],
    ],
  };
  const lists = [
    ['EMAIL_PROVIDERS', e.EMAIL_PROVIDERS ?? []],
    ['SMS_PROVIDERS', e.SMS_PROVIDERS ?? []],
  ] as const;
  return lists.flatMap(([list, names]) => names.flatMap((name) => (needs[name] ?? []).filter(([, value]) => !value).map(([setting]) => `  ${list}: ${name} needs ${setting}`)));
}

/** `url` with `password` (any characters) percent-encoded as its user's password; `url` itself without one. */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const composed = new URL(url);
  composed.password = encodeURIComponent(password);
  return composed.toString();
}

/** Thrown by loadConfig; the message lists every bad variable by name. */
export class ConfigError extends Error {}

/**
 * Parses the environment once, at start-up. Nothing else reads `process.env`.
 * @example const config = loadConfig(); // throws ConfigError naming each bad variable
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as in most shells' `FOO= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => describeIssue(issue, present));
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const issues = [
    ...providerSettingsMissing(e),
    e.NODE_ENV === 'production' && !e.WEBHOOK_SECRET_KEY && '  WEBHOOK_SECRET_KEY: required in production',
    e.NODE_ENV === 'production' && !e.UNSUBSCRIBE_SECRET && '  UNSUBSCRIBE_SECRET: required in production',
    e.NODE_ENV === 'production' && e.WEBHOOK_ALLOW_LOOPBACK && '  WEBHOOK_ALLOW_LOOPBACK: never allowed in production',
  ].filter(Boolean);
  if (issues.length) throw new ConfigError(`Invalid configuration:\n${issues.join('\n')}`);
  return {
    env: e.NODE_ENV,
    databaseUrl: withPassword(e.DATABASE_URL, e.DATABASE_PASSWORD),
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    statementTimeoutMs: { requests: e.DATABASE_STATEMENT_TIMEOUT_MS, jobs: e.DATABASE_JOB_STATEMENT_TIMEOUT_MS },
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    apiPort: e.API_PORT,
    opsHost: e.OPS_HOST,
    apiMetricsPort: e.API_METRICS_PORT,
    dashboardPort: e.DASHBOARD_PORT,
    dashboardMetricsPort: e.DASHBOARD_METRICS_PORT,
    publicApiUrl: e.PUBLIC_API_URL,
    publicDashboardUrl: e.PUBLIC_DASHBOARD_URL,
    dashboardSecureCookies: e.NODE_ENV === 'production' || new URL(e.PUBLIC_DASHBOARD_URL).protocol === 'https:',
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitWindowMs: e.RATE_LIMIT_WINDOW_MS,
    orgRateLimitPerMinute: e.ORG_RATE_LIMIT_PER_MINUTE ?? e.RATE_LIMIT_PER_MINUTE * 10,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    trustProxy: e.TRUST_PROXY,
    apiKeysPerOrgMax: e.API_KEYS_PER_ORG_MAX,
    idempotencyLeaseMs: e.IDEMPOTENCY_LEASE_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    sendBodyLimitBytes: e.SEND_BODY_LIMIT_BYTES,
    signInRateLimit: e.SIGN_IN_RATE_LIMIT,
    providerEventRateLimit: e.PROVIDER_EVENT_RATE_LIMIT,
    templateRender: { budgetMs: e.TEMPLATE_RENDER_BUDGET_MS, threads: e.TEMPLATE_RENDER_THREADS, maxTags: e.TEMPLATE_MAX_TAGS },
    resend: { apiKey: e.RESEND_API_KEY, baseUrl: e.RESEND_BASE_URL, webhookSecret: e.RESEND_WEBHOOK_SECRET },
    telnyx: { apiKey: e.TELNYX_API_KEY, baseUrl: e.TELNYX_BASE_URL, publicKey: e.TELNYX_PUBLIC_KEY, messagingProfileId: e.TELNYX_MESSAGING_PROFILE_ID },
    smtp: { url: e.SMTP_URL, poolSize: e.SMTP_POOL_SIZE },
    smtpSubmission: {
      port: e.SMTP_SUBMISSION_PORT,
      tlsPort: e.SMTPS_PORT,
      metricsPort: e.SMTP_METRICS_PORT,
      tlsCert: e.SMTP_TLS_CERT,
      tlsKey: e.SMTP_TLS_KEY,
      publicHost: e.SMTP_PUBLIC_HOST ?? new URL(e.PUBLIC_API_URL).hostname,
      allowAuthWithoutTls: e.NODE_ENV !== 'production',
    },
    ses: {
      region: e.SES_REGION,
      accessKeyId: e.SES_ACCESS_KEY_ID,
      secretAccessKey: e.SES_SECRET_ACCESS_KEY,
      endpoint: e.SES_ENDPOINT,
      configurationSet: e.SES_CONFIGURATION_SET,
      snsUrlPattern: e.SNS_URL_PATTERN,
      snsTopicArn: e.SES_SNS_TOPIC_ARN,
    },
    twilio: { accountSid: e.TWILIO_ACCOUNT_SID, authToken: e.TWILIO_AUTH_TOKEN, baseUrl: e.TWILIO_BASE_URL },
    providerLists: {
      // Without a list: the provider whose credentials are set, as before lists existed, else the sandbox.
      email: e.EMAIL_PROVIDERS ?? [e.RESEND_API_KEY ? 'resend' : 'sandbox'],
      sms: e.SMS_PROVIDERS ?? [e.TELNYX_API_KEY ? 'telnyx' : 'sandbox'],
    },
    circuit: { failures: e.PROVIDER_CIRCUIT_FAILURES, cooldownMs: e.PROVIDER_CIRCUIT_COOLDOWN_MS },
    smsReplies: { stop: e.SMS_STOP_REPLY, start: e.SMS_START_REPLY, help: e.SMS_HELP_TEXT },
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
    strandedJobAfterMs: e.STRANDED_JOB_AFTER_MS,
    strandedSweepEveryMs: Math.min(60_000, Math.round(e.STRANDED_JOB_AFTER_MS / 2)),
    retention: { messageDays: e.MESSAGE_RETENTION_DAYS, webhookAttemptDays: e.WEBHOOK_ATTEMPT_RETENTION_DAYS, auditDays: e.AUDIT_RETENTION_DAYS },
    segmentCountMaxAgeMs: e.SEGMENT_COUNT_MAX_AGE_MS,
    webhooks: {
      secretKey: e.WEBHOOK_SECRET_KEY ?? LOCAL_WEBHOOK_SECRET_KEY,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
      disableAfterFailingMs: e.WEBHOOK_DISABLE_AFTER_FAILING_MS,
      workerConcurrency: e.WEBHOOK_WORKER_CONCURRENCY,
      bulkWorkerConcurrency: e.WEBHOOK_WORKER_BULK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      endpointsPerOrg: e.WEBHOOK_ENDPOINTS_PER_ORG,
      replayMax: e.WEBHOOK_REPLAY_MAX,
      lockMs: e.WEBHOOK_WORKER_LOCK_MS,
      stalledIntervalMs: e.WEBHOOK_WORKER_STALLED_INTERVAL_MS,
      workerMetricsPort: e.WEBHOOK_WORKER_METRICS_PORT,
    },
    dnsServers: e.DNS_SERVERS,
    broadcasts: {
      workerConcurrency: e.BROADCAST_WORKER_CONCURRENCY,
      chunkSize: e.BROADCAST_CHUNK_SIZE,
      orgWindow: e.BROADCAST_ORG_WINDOW,
      renderBatchSize: e.BROADCAST_RENDER_BATCH_SIZE,
      unsubscribeSecret: e.UNSUBSCRIBE_SECRET ?? LOCAL_UNSUBSCRIBE_SECRET,
      unsubscribeRateLimit: e.UNSUBSCRIBE_RATE_LIMIT,
    },
    logLevel: e.LOG_LEVEL,
    sendWorker: {
      queues: e.SEND_WORKER_QUEUES,
      concurrency: e.SEND_WORKER_CONCURRENCY,
      bulkConcurrency: e.SEND_WORKER_BULK_CONCURRENCY ?? e.SEND_WORKER_CONCURRENCY,
      maxAttempts: e.SEND_MAX_ATTEMPTS,
      backoffBaseMs: e.SEND_BACKOFF_BASE_MS,
      backoffMaxMs: e.SEND_BACKOFF_MAX_MS,
      providerTimeoutMs: e.PROVIDER_TIMEOUT_MS,
      lockDurationMs: e.SEND_WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.SEND_WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: e.SEND_WORKER_MAX_STALLED_COUNT,
      metricsPort: e.SEND_WORKER_METRICS_PORT,
      outboxRelayIntervalMs: e.OUTBOX_RELAY_INTERVAL_MS,
      outboxRelayGraceMs: e.OUTBOX_RELAY_GRACE_MS,
      sandboxOutcomeDelayMs: e.SANDBOX_OUTCOME_DELAY_MS,
    },
  };
}

/**
 * Whether live messages go through any real provider (Resend, SMTP, SES, Telnyx or Twilio): the provider lists name
 * one (a listed provider always has its settings, or the configuration is refused). Without one, live keys have
 * nowhere real to send (and no domain can be verified), so the dashboard offers test keys first.
 * @example hasLiveProvider(loadConfig({})) // false; hasLiveProvider(loadConfig({ SMS_PROVIDERS: 'twilio', ... })) // true
 */
export function hasLiveProvider(config: Pick<Config, 'providerLists'>): boolean {
  return [...config.providerLists.email, ...config.providerLists.sms].some((name) => name !== 'sandbox');
}

export { loadEnvFile } from './env-file.ts';
export { productionProblems, type ProductionProblem } from './production.ts';
