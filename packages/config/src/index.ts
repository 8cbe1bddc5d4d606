import { z } from 'zod';

const booleanFromString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number().int().min(0).max(65535);

/** Every setting Tidings reads from the environment, with the local defaults `npm start` runs on. */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/tidings'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key and BullMQ queue, so several installs (or test runs) can share one Redis. */
  REDIS_PREFIX: z.string().min(1).max(64).default('tidings'),
  API_PORT: port.default(3000),
  DASHBOARD_PORT: port.default(3001),
  /** Where the API is reached from outside, for links and printed examples. */
  PUBLIC_API_URL: z.url().default('http://localhost:3000'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  /** How long a key lookup is cached in process; a disabled key stops working within this time. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(2000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Dashboard sign-in attempts per 15 minutes per email address (five times as many per client address). */
  SIGN_IN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  RESEND_API_KEY: z.string().min(1).optional(),
  RESEND_BASE_URL: z.url().optional(),
  TELNYX_API_KEY: z.string().min(1).optional(),
  TELNYX_BASE_URL: z.url().optional(),
  TELNYX_PUBLIC_KEY: z.string().min(1).optional(),
  RESEND_WEBHOOK_SECRET: z.string().min(1).optional(),
  WEBHOOK_ALLOW_LOOPBACK: booleanFromString.default(false),
  /** Resolvers for domain verification, `host:port,...`; the system's when unset. */
  DNS_SERVERS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'expected host:port,host:port')
    .transform((v) => v.split(','))
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  redisPrefix: string;
  apiPort: number;
  dashboardPort: number;
  publicApiUrl: string;
  rateLimitPerMinute: number;
  apiKeyCacheTtlMs: number;
  bodyLimitBytes: number;
  signInRateLimit: number;
  resend: { apiKey?: string; baseUrl?: string; webhookSecret?: string };
  telnyx: { apiKey?: string; baseUrl?: string; publicKey?: string };
  webhookAllowLoopback: boolean;
  dnsServers?: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
};

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
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    apiPort: e.API_PORT,
    dashboardPort: e.DASHBOARD_PORT,
    publicApiUrl: e.PUBLIC_API_URL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    signInRateLimit: e.SIGN_IN_RATE_LIMIT,
    resend: { apiKey: e.RESEND_API_KEY, baseUrl: e.RESEND_BASE_URL, webhookSecret: e.RESEND_WEBHOOK_SECRET },
    telnyx: { apiKey: e.TELNYX_API_KEY, baseUrl: e.TELNYX_BASE_URL, publicKey: e.TELNYX_PUBLIC_KEY },
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
    dnsServers: e.DNS_SERVERS,
    logLevel: e.LOG_LEVEL,
  };
}
