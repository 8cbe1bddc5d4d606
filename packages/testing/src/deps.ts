import { randomUUID } from 'node:crypto';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import { testDatabaseUrl } from './test-database.ts';

export type TestDeps = ReturnType<typeof openDeps>;

/**
 * Real Postgres (the run's test database) and real Redis under a prefix of this test file's own, with logs off.
 * Close it in afterAll. `options.providers` replaces the providers built from the configuration.
 * @example const deps = createTestDeps({ RATE_LIMIT_PER_MINUTE: '5' });
 */
export function createTestDeps(env: Record<string, string> = {}, options: Parameters<typeof openDeps>[2] = {}): TestDeps {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: process.env.TEST_DATABASE_URL ?? testDatabaseUrl().url,
    DATABASE_POOL_SIZE: '5',
    REDIS_PREFIX: `test:${randomUUID().slice(0, 8)}`,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    // a worker's scheduled retention would remove other tests' back-dated rows from the shared test database
    MESSAGE_RETENTION_DAYS: '0',
    WEBHOOK_ATTEMPT_RETENTION_DAYS: '0',
    ...env,
  });
  return openDeps(config, 'test', options);
}
