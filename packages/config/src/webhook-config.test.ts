import { ConfigError, loadConfig } from './index.ts';

describe('webhook settings', () => {
  it('defaults to the schedule, timeout and auto-disable of API.md, with a local-only secret key', () => {
    const { webhooks } = loadConfig({});
    expect(webhooks.retryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(webhooks.timeoutMs).toBe(15_000);
    expect(webhooks.disableAfterFailingMs).toBe(5 * 24 * 3600_000);
    expect(webhooks.secretKey.length).toBeGreaterThanOrEqual(16);
  });

  it('reads a short schedule for tests and refuses a malformed one', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '100,200' }).webhooks.retryScheduleMs).toEqual([100, 200]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '5s,1m' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
  });

  it('production needs its own WEBHOOK_SECRET_KEY and never allows loopback targets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/WEBHOOK_SECRET_KEY: required in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32), WEBHOOK_ALLOW_LOOPBACK: 'true' })).toThrow(
      /WEBHOOK_ALLOW_LOOPBACK: never allowed in production/,
    );
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32), UNSUBSCRIBE_SECRET: 'u'.repeat(32) }).webhooks.secretKey).toBe('x'.repeat(32));
  });

  it('production needs its own UNSUBSCRIBE_SECRET, like WEBHOOK_SECRET_KEY', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32) })).toThrow(/UNSUBSCRIBE_SECRET: required in production/);
    const config = loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(32), UNSUBSCRIBE_SECRET: 'u'.repeat(32) });
    expect(config.broadcasts.unsubscribeSecret).toBe('u'.repeat(32));
  });
});
