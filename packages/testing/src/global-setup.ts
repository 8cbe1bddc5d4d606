// jest globalSetup: a fresh test database for each worker of this suite (TEST_SUITE, from the config's folder, so that
// suites and their workers can run at once), a copy of the checkout's migrated template (made by `tidings migrate` in a
// child process: the schema engine would otherwise keep jest's own process alive). Test files then isolate by
// organization and Redis prefix; workers inherit TEST_SUITE (and the metrics ports below), and worker-database.ts
// gives each test file its worker's TEST_DATABASE_URL.
import { copyMigratedTemplate, testDatabaseUrl, testSuiteName } from './test-database.ts';

export default async function globalSetup(globalConfig: { maxWorkers: number }, projectConfig: { rootDir: string }) {
  process.env.TEST_SUITE = testSuiteName(projectConfig.rootDir);
  const { adminUrl } = testDatabaseUrl();
  for (let worker = 1; worker <= Math.max(1, globalConfig.maxWorkers); worker++) {
    await copyMigratedTemplate(adminUrl, testDatabaseUrl({ ...process.env, JEST_WORKER_ID: String(worker) }).name);
  }
  // password hashes at scrypt's least cost (N=2^10, a millisecond, against a second and more at the default 2^15 on a
  // loaded machine): suites sign people in hundreds of times. Tests of the cost itself and of production set their own.
  process.env.PASSWORD_HASH_COST ??= '10';
  // API and worker processes that tests spawn serve /metrics on a free port, so parallel runs never fight over the default
  process.env.API_METRICS_PORT ??= '0';
  process.env.DASHBOARD_METRICS_PORT ??= '0';
  process.env.SEND_WORKER_METRICS_PORT ??= '0';
  process.env.WEBHOOK_WORKER_METRICS_PORT ??= '0';
}
