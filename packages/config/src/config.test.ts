import { parse } from 'pg-connection-string';
import { ConfigError, hasLiveProvider, loadConfig } from './index.ts';

describe('loadConfig', () => {
  it('runs on local defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgresql://postgres@127.0.0.1:5432/tidings');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.apiPort).toBe(3000);
    // the workers' /metrics ports sit beside the API's and the dashboard's, so `npm start` runs all four on one host
    expect([config.apiPort, config.dashboardPort, config.sendWorker.metricsPort, config.webhooks.workerMetricsPort]).toEqual([3000, 3001, 3002, 3003]);
    expect(config.rateLimitPerMinute).toBe(100);
    expect(config.webhookAllowLoopback).toBe(false);
  });

  it('keeps messages 90 days and webhook attempts 30 by default; 0 keeps them forever, a negative number is refused', () => {
    expect(loadConfig({}).retention).toEqual({ messageDays: 90, webhookAttemptDays: 30, auditDays: 365 });
    expect(loadConfig({ MESSAGE_RETENTION_DAYS: '0', WEBHOOK_ATTEMPT_RETENTION_DAYS: '7' }).retention).toEqual({ messageDays: 0, webhookAttemptDays: 7, auditDays: 365 });
    expect(() => loadConfig({ MESSAGE_RETENTION_DAYS: '-1' })).toThrow(/MESSAGE_RETENTION_DAYS/);
  });

  it("keeps four Resend batches of bulk sends in flight per send-worker, 100 with SES, else the worker's concurrency", () => {
    const bulk = (env: Record<string, string>) => loadConfig(env).sendWorker.bulkConcurrency;
    expect(bulk({ EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_x' })).toBe(400);
    const ses = { SES_REGION: 'eu-west-1', SES_ACCESS_KEY_ID: 'AKIA', SES_SECRET_ACCESS_KEY: 'secret' };
    expect(bulk({ EMAIL_PROVIDERS: 'resend,ses', RESEND_API_KEY: 're_x', ...ses })).toBe(400);
    expect(bulk({ EMAIL_PROVIDERS: 'ses', ...ses })).toBe(100);
    expect(bulk({ EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_x', SEND_WORKER_BULK_CONCURRENCY: '50' })).toBe(50);
    expect(bulk({})).toBe(loadConfig({}).sendWorker.concurrency);
  });

  it('hashes passwords at N=2^15 by default; PASSWORD_HASH_COST takes 10 to 16, and production at least 15', () => {
    expect(loadConfig({}).passwordHashCost).toBe(15);
    expect(loadConfig({ PASSWORD_HASH_COST: '10' }).passwordHashCost).toBe(10);
    for (const bad of ['9', '17', '12.5', 'fast']) expect(() => loadConfig({ PASSWORD_HASH_COST: bad })).toThrow(/PASSWORD_HASH_COST/);
    const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32), UNSUBSCRIBE_SECRET: 'u'.repeat(32) };
    expect(loadConfig(production).passwordHashCost).toBe(15);
    expect(() => loadConfig({ ...production, PASSWORD_HASH_COST: '14' })).toThrow('PASSWORD_HASH_COST: at least 15 in production');
    expect(loadConfig({ ...production, PASSWORD_HASH_COST: '16' }).passwordHashCost).toBe(16);
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ API_PORT: 'abc', REDIS_URL: 'not a url', WEBHOOK_ALLOW_LOOPBACK: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ API_PORT: 'abc', REDIS_URL: 'not a url' });
    } catch (error) {
      expect((error as Error).message).toMatch(/API_PORT/);
      expect((error as Error).message).toMatch(/REDIS_URL/);
    }
  });

  it('repeats the bad value and says what was expected, but never the value of a secret', () => {
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: 'abc' })).toThrow('Invalid configuration:\n  RATE_LIMIT_PER_MINUTE: expected a number (got "abc")');
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '0' })).toThrow('RATE_LIMIT_PER_MINUTE: Too small: expected number to be >=1 (got "0")');
    expect(() => loadConfig({ REDIS_URL: 'redis://:hunter2@' })).toThrow(/REDIS_URL: .* \(value not shown\)/);
    expect(() => loadConfig({ REDIS_URL: 'redis://:hunter2@' })).not.toThrow(/hunter2/);
  });

  it('takes a Redis Cluster as REDIS_URL (seed nodes after redis+cluster://) and refuses a malformed one', () => {
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7100,127.0.0.1:7101' }).redisUrl).toBe('redis+cluster://127.0.0.1:7100,127.0.0.1:7101');
    expect(loadConfig({ REDIS_URL: 'rediss+cluster://:pw@redis-a:6379,redis-b:6379' }).redisUrl).toMatch(/^rediss\+cluster:/);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1,127.0.0.1:7101' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://' })).toThrow(/REDIS_URL/);
  });

  it('makes dashboard cookies Secure in production or for an https PUBLIC_DASHBOARD_URL, and only then', () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32), UNSUBSCRIBE_SECRET: 'u'.repeat(32) };
    expect(loadConfig({}).dashboardSecureCookies).toBe(false);
    expect(loadConfig({ PUBLIC_DASHBOARD_URL: 'http://dashboard.example.com' }).dashboardSecureCookies).toBe(false);
    expect(loadConfig({ PUBLIC_DASHBOARD_URL: 'https://dashboard.example.com' }).dashboardSecureCookies).toBe(true);
    expect(loadConfig(production).dashboardSecureCookies).toBe(true);
    expect(loadConfig({ ...production, PUBLIC_DASHBOARD_URL: 'http://localhost:3001' }).dashboardSecureCookies).toBe(true);
  });

  it('reads lists and booleans', () => {
    const config = loadConfig({ DNS_SERVERS: '127.0.0.1:5353,10.0.0.1:53', WEBHOOK_ALLOW_LOOPBACK: 'true', RATE_LIMIT_PER_MINUTE: '5000' });
    expect(config.dnsServers).toEqual(['127.0.0.1:5353', '10.0.0.1:53']);
    expect(config.webhookAllowLoopback).toBe(true);
    expect(config.rateLimitPerMinute).toBe(5000);
  });

  it('reads DATABASE_READ_URL as one replica or several, with DATABASE_PASSWORD, and refuses what is not a postgresql URL', () => {
    expect(loadConfig({}).databaseReads).toEqual({ urls: [], maxLagMs: 5000 });
    const config = loadConfig({
      DATABASE_READ_URL: 'postgresql://tidings@replica-1/tidings, postgres://tidings@replica-2:5433/tidings',
      DATABASE_PASSWORD: 'p@ss',
      DATABASE_READ_MAX_LAG_MS: '2000',
    });
    expect(config.databaseReads.maxLagMs).toBe(2000);
    expect(config.databaseReads.urls.map((url) => parse(url))).toMatchObject([
      { host: 'replica-1', password: 'p@ss', database: 'tidings' },
      { host: 'replica-2', port: '5433', password: 'p@ss' },
    ]);
    expect(() => loadConfig({ DATABASE_READ_URL: 'redis://replica' })).toThrow(/DATABASE_READ_URL/);
  });

  it('puts DATABASE_PASSWORD into DATABASE_URL encoded, so any generated password works, and never shows it', () => {
    const password = 'k/7+Qz@9:%41w=Rm#p1 ?&';
    const config = loadConfig({ DATABASE_URL: 'postgresql://tidings@postgres:5432/tidings', DATABASE_PASSWORD: password });
    // what node-postgres (and so Prisma's adapter) reads back from the URL
    expect(parse(config.databaseUrl)).toMatchObject({ user: 'tidings', password, host: 'postgres', port: '5432', database: 'tidings' });
    expect(parse(loadConfig({ DATABASE_URL: 'postgresql://u:old@db/x', DATABASE_PASSWORD: 'new' }).databaseUrl).password).toBe('new');
    expect(() => loadConfig({ DATABASE_URL: 'nope', DATABASE_PASSWORD: password })).not.toThrow(/k\/7/);
  });

  it('binds the ops ports to 127.0.0.1 unless OPS_HOST says otherwise', () => {
    expect(loadConfig({}).opsHost).toBe('127.0.0.1');
    expect(loadConfig({ OPS_HOST: '0.0.0.0' }).opsHost).toBe('0.0.0.0');
  });
});

describe('hasLiveProvider', () => {
  it('knows every real provider: Resend, SMTP, SES, Telnyx and Twilio', () => {
    expect(hasLiveProvider(loadConfig({}))).toBe(false);
    expect(hasLiveProvider(loadConfig({ RESEND_API_KEY: 're_1' }))).toBe(true);
    expect(hasLiveProvider(loadConfig({ TELNYX_API_KEY: 'KEY1' }))).toBe(true);
    expect(hasLiveProvider(loadConfig({ EMAIL_PROVIDERS: 'smtp', SMTP_URL: 'smtp://u:p@127.0.0.1:2525' }))).toBe(true);
    expect(hasLiveProvider(loadConfig({ EMAIL_PROVIDERS: 'ses', SES_REGION: 'eu-west-1', SES_ACCESS_KEY_ID: 'a', SES_SECRET_ACCESS_KEY: 's' }))).toBe(true);
    expect(hasLiveProvider(loadConfig({ SMS_PROVIDERS: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't' }))).toBe(true);
    expect(hasLiveProvider(loadConfig({ EMAIL_PROVIDERS: 'sandbox', SMS_PROVIDERS: 'sandbox' }))).toBe(false);
  });
});
