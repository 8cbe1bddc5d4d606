import type { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { EnvSchema, PASSWORD_HASH_COST_PRODUCTION, type EmailProviderName } from './env-schema.ts';

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
  const emailProviders = e.EMAIL_PROVIDERS ?? [e.RESEND_API_KEY ? 'resend' : 'sandbox'];
  const issues = [
    ...providerSettingsMissing(e),
    e.NODE_ENV === 'production' && !e.WEBHOOK_SECRET_KEY && '  WEBHOOK_SECRET_KEY: required in production',
    e.NODE_ENV === 'production' && !e.UNSUBSCRIBE_SECRET && '  UNSUBSCRIBE_SECRET: required in production',
    e.NODE_ENV === 'production' && e.WEBHOOK_ALLOW_LOOPBACK && '  WEBHOOK_ALLOW_LOOPBACK: never allowed in production',
    e.NODE_ENV === 'production' &&
      e.PASSWORD_HASH_COST < PASSWORD_HASH_COST_PRODUCTION &&
      `  PASSWORD_HASH_COST: at least ${PASSWORD_HASH_COST_PRODUCTION} in production (lower makes stolen password hashes quick to guess)`,
  ].filter(Boolean);
  if (issues.length) throw new ConfigError(`Invalid configuration:\n${issues.join('\n')}`);
  return configFrom(e, emailProviders);
}

/** The settings, grouped, from the parsed environment; `Config` is its result, so the two cannot disagree. */
function configFrom(e: z.infer<typeof EnvSchema>, emailProviders: EmailProviderName[]) {
  return {
    env: e.NODE_ENV,
    databaseUrl: withPassword(e.DATABASE_URL, e.DATABASE_PASSWORD),
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    /** Replicas for reads that may lag, and how far behind one may be (ms) before reads leave it for the primary. */
    databaseReads: { urls: e.DATABASE_READ_URL.map((url) => withPassword(url, e.DATABASE_PASSWORD)), maxLagMs: e.DATABASE_READ_MAX_LAG_MS },
    /** statement_timeout of request-serving processes, and of job-running ones (ms; 0: none). */
    statementTimeoutMs: { requests: e.DATABASE_STATEMENT_TIMEOUT_MS, jobs: e.DATABASE_JOB_STATEMENT_TIMEOUT_MS },
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    /** REDIS_REQUEST_TIMEOUT_MS. */
    redisRequestTimeoutMs: e.REDIS_REQUEST_TIMEOUT_MS,
    apiPort: e.API_PORT,
    opsHost: e.OPS_HOST,
    apiMetricsPort: e.API_METRICS_PORT,
    dashboardPort: e.DASHBOARD_PORT,
    dashboardMetricsPort: e.DASHBOARD_METRICS_PORT,
    publicApiUrl: e.PUBLIC_API_URL,
    publicDashboardUrl: e.PUBLIC_DASHBOARD_URL,
    /**
     * Whether dashboard cookies carry `Secure`: in production or when the dashboard's public address is https. Decided
     * from configuration, never from a request's Host or scheme, which a proxy may rewrite.
     */
    dashboardSecureCookies: e.NODE_ENV === 'production' || new URL(e.PUBLIC_DASHBOARD_URL).protocol === 'https:',
    /** PASSWORD_HASH_COST: new password hashes take scrypt's N = 2^this. */
    passwordHashCost: e.PASSWORD_HASH_COST,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitWindowMs: e.RATE_LIMIT_WINDOW_MS,
    /** ORG_RATE_LIMIT_PER_MINUTE: the ceiling of all of an organization's keys together, so more keys are not more requests. */
    orgRateLimitPerMinute: e.ORG_RATE_LIMIT_PER_MINUTE ?? e.RATE_LIMIT_PER_MINUTE * 10,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    trustProxy: e.TRUST_PROXY,
    apiKeysPerOrgMax: e.API_KEYS_PER_ORG_MAX,
    idempotencyLeaseMs: e.IDEMPOTENCY_LEASE_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    sendBodyLimitBytes: e.SEND_BODY_LIMIT_BYTES,
    signInRateLimit: e.SIGN_IN_RATE_LIMIT,
    /** PROVIDER_EVENT_RATE_LIMIT: provider callbacks per minute per client address. */
    providerEventRateLimit: e.PROVIDER_EVENT_RATE_LIMIT,
    /** TRACKING_RATE_LIMIT: opens, and apart clicks, per minute per client address. */
    trackingRateLimit: e.TRACKING_RATE_LIMIT,
    templateRender: { budgetMs: e.TEMPLATE_RENDER_BUDGET_MS, threads: e.TEMPLATE_RENDER_THREADS, maxTags: e.TEMPLATE_MAX_TAGS },
    resend: { apiKey: e.RESEND_API_KEY, baseUrl: e.RESEND_BASE_URL, webhookSecret: e.RESEND_WEBHOOK_SECRET },
    telnyx: { apiKey: e.TELNYX_API_KEY, baseUrl: e.TELNYX_BASE_URL, publicKey: e.TELNYX_PUBLIC_KEY, messagingProfileId: e.TELNYX_MESSAGING_PROFILE_ID },
    smtp: { url: e.SMTP_URL, poolSize: e.SMTP_POOL_SIZE },
    /**
     * SMTP submission (apps/smtp): its ports, TLS pair (unset: self-signed at start, refused in production), the host
     * clients are told to use, and whether AUTH is allowed before TLS (everywhere but production).
     */
    smtpSubmission: {
      port: e.SMTP_SUBMISSION_PORT,
      tlsPort: e.SMTPS_PORT,
      metricsPort: e.SMTP_METRICS_PORT,
      tlsCert: e.SMTP_TLS_CERT,
      tlsKey: e.SMTP_TLS_KEY,
      publicHost: e.SMTP_PUBLIC_HOST ?? new URL(e.PUBLIC_API_URL).hostname,
      allowAuthWithoutTls: e.NODE_ENV !== 'production',
      maxConnections: e.SMTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: e.SMTP_MAX_CONNECTIONS_PER_ADDRESS,
      maxMailsPerKey: e.SMTP_MAX_MAILS_PER_KEY,
      maxMailsPerAddress: e.SMTP_MAX_MAILS_PER_ADDRESS,
      maxReceivingBytesPerKey: e.SMTP_MAX_RECEIVING_BYTES_PER_KEY,
      commandTimeoutMs: e.SMTP_COMMAND_TIMEOUT_MS,
      dataTimeoutMs: e.SMTP_DATA_TIMEOUT_MS,
      maxMimeParts: e.SMTP_MAX_MIME_PARTS,
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
    /** The providers live messages go through, in order of preference (test keys always use the sandbox). */
    providerLists: {
      // Without a list: the provider whose credentials are set, as before lists existed, else the sandbox.
      email: emailProviders,
      sms: e.SMS_PROVIDERS ?? [e.TELNYX_API_KEY ? 'telnyx' : 'sandbox'],
    },
    circuit: { failures: e.PROVIDER_CIRCUIT_FAILURES, cooldownMs: e.PROVIDER_CIRCUIT_COOLDOWN_MS },
    /** Requests (or emails) per second per provider account, where paced; see RESEND_RATE_PER_SECOND and the others. */
    pace: { resendPerSecond: e.RESEND_RATE_PER_SECOND, sesPerSecond: e.SES_MAX_SEND_RATE, smtpPerSecond: e.SMTP_RATE_PER_SECOND, maxWaitMs: e.PACE_MAX_WAIT_MS },
    /** SMS_STOP_REPLY, SMS_START_REPLY and SMS_HELP_TEXT: the install's answers to the SMS keywords. */
    smsReplies: { stop: e.SMS_STOP_REPLY, start: e.SMS_START_REPLY, help: e.SMS_HELP_TEXT },
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
    /** See STRANDED_JOB_AFTER_MS; `strandedSweepEveryMs` is how often the sweeps run. */
    strandedJobAfterMs: e.STRANDED_JOB_AFTER_MS,
    strandedSweepEveryMs: Math.min(60_000, Math.round(e.STRANDED_JOB_AFTER_MS / 2)),
    /** MESSAGE_RETENTION_DAYS, WEBHOOK_ATTEMPT_RETENTION_DAYS and AUDIT_RETENTION_DAYS (0: forever). */
    retention: { messageDays: e.MESSAGE_RETENTION_DAYS, webhookAttemptDays: e.WEBHOOK_ATTEMPT_RETENTION_DAYS, auditDays: e.AUDIT_RETENTION_DAYS },
    /** SEGMENT_COUNT_MAX_AGE_MS. */
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
    /** VERIFY_SECRET (keys the codes' hash) and SMS_PREFIX_LIMIT_PER_HOUR (the SMS fraud guard's velocity limit). */
    verify: { secret: e.VERIFY_SECRET ?? e.UNSUBSCRIBE_SECRET ?? LOCAL_UNSUBSCRIBE_SECRET, smsPrefixLimitPerHour: e.SMS_PREFIX_LIMIT_PER_HOUR },
    sendWorker: {
      queues: e.SEND_WORKER_QUEUES,
      concurrency: e.SEND_WORKER_CONCURRENCY,
      // Resend: four batches of 100 in the gate, so a full batch waits at every slot even while the last ones are
      // being marked sent, and the bulk lane's burst (three slots ahead) can catch up after a stall or the start;
      // with 100 the batches ran small on a busy machine (0.72 of the limit against 0.86 with 400, same load)
      bulkConcurrency:
        e.SEND_WORKER_BULK_CONCURRENCY ??
        (emailProviders.includes('resend')
          ? Math.max(400, e.SEND_WORKER_CONCURRENCY)
          : emailProviders.includes('ses')
            ? Math.max(100, e.SEND_WORKER_CONCURRENCY)
            : e.SEND_WORKER_CONCURRENCY),
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

/** Every setting of an install, read once at start-up (loadConfig). */
export type Config = ReturnType<typeof configFrom>;

/**
 * Whether live messages go through any real provider (Resend, SMTP, SES, Telnyx or Twilio): the provider lists name
 * one (a listed provider always has its settings, or the configuration is refused). Without one, live keys have
 * nowhere real to send (and no domain can be verified), so the dashboard offers test keys first.
 * @example hasLiveProvider(loadConfig({})) // false; hasLiveProvider(loadConfig({ SMS_PROVIDERS: 'twilio', ... })) // true
 */
export function hasLiveProvider(config: Pick<Config, 'providerLists'>): boolean {
  return [...config.providerLists.email, ...config.providerLists.sms].some((name) => name !== 'sandbox');
}
