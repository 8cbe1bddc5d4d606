// The environment of the processes that answer requests (the API, the dashboard): ports, addresses, limits, secrets.
import { z } from 'zod';
import { booleanFromString, port } from './env-parts.ts';

/** The lowest PASSWORD_HASH_COST production takes, and the default: lower is only for the test suites' speed. */
export const PASSWORD_HASH_COST_PRODUCTION = 15;

/** The settings of the API and the dashboard, and those every process reads (NODE_ENV, LOG_LEVEL). */
export const apiEnv = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
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
  /** A segment's cached contactCount older than this is counted again in the background when read (reads never count). */
  SEGMENT_COUNT_MAX_AGE_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** Resolvers for domain verification, `host:port,...`; the system's when unset. */
  DNS_SERVERS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'expected host:port,host:port')
    .transform((v) => v.split(','))
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
};
