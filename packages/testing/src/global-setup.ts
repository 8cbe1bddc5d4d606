// jest globalSetup: a fresh test database for this run, migrated once by `tidings migrate` in a child process
// (the schema engine would otherwise keep jest's own process alive). Test files then isolate by organization and
// Redis prefix; workers inherit TEST_DATABASE_URL (and the metrics ports below).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { recreateDatabase, testDatabaseUrl } from './test-database.ts';

export default async function globalSetup() {
  const { adminUrl, url, name } = testDatabaseUrl();
  await recreateDatabase(adminUrl, name);
  const cli = path.resolve(__dirname, '../../cli/bin/tidings.js');
  execFileSync(process.execPath, [cli, 'migrate'], { env: { ...process.env, DATABASE_URL: url }, stdio: 'pipe' });
  process.env.TEST_DATABASE_URL = url;
  // API and worker processes that tests spawn serve /metrics on a free port, so parallel runs never fight over the default
  process.env.API_METRICS_PORT ??= '0';
  process.env.DASHBOARD_METRICS_PORT ??= '0';
  process.env.SEND_WORKER_METRICS_PORT ??= '0';
  process.env.WEBHOOK_WORKER_METRICS_PORT ??= '0';
}
