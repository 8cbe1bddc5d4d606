// `npm start`: migrate while the apps' bundles are brought up to date, then run every app on local defaults (and
// .env, when there is one) in one terminal, saying when each is ready. In production each app runs alone.
import path from 'node:path';
import { ConfigError, loadConfig, loadEnvFile, type Config } from '@tidings/config';
// the migrator alone: the package's index also loads the Prisma client, which this process never uses
import { migrate } from '@tidings/db/migrate';
import { buildApps, reportReadiness, type StartedApp } from './start-apps.ts';
import { superviseApps } from './supervise.ts';

const root = path.resolve(__dirname, '..');
const startedAt = Date.now();
let envFile: string | undefined;
try {
  envFile = loadEnvFile(); // before anything reads the environment: the apps inherit it
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
// the built bundles (one file each) start in a fraction of the time the sources take through tsx
const entries: StartedApp[] = [
  { name: 'api', bundle: 'apps/api/dist/server.js', opsPort: (c) => c.apiMetricsPort },
  { name: 'webhook-worker', bundle: 'apps/webhook-worker/dist/worker.js', opsPort: (c) => c.webhooks.workerMetricsPort },
  { name: 'send-worker', bundle: 'apps/send-worker/dist/worker.js', opsPort: (c) => c.sendWorker.metricsPort },
  { name: 'dashboard', bundle: 'apps/dashboard/dist/server.js', opsPort: (c) => c.dashboardMetricsPort },
  { name: 'smtp', bundle: 'apps/smtp/dist/server.js', opsPort: (c) => c.smtpSubmission.metricsPort },
];
const isProduction = process.env.NODE_ENV === 'production';
// Local defaults for the apps: webhooks may target a receiver on this machine. Never in production; a value the
// caller set wins.
const localEnv: Record<string, string> = isProduction ? {} : { WEBHOOK_ALLOW_LOOPBACK: 'true' };
const log = (line: string) => console.error(`[start] ${new Date().toISOString()} ${line}`);

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (envFile) console.log(`read ${path.relative(process.cwd(), envFile) || envFile}`);
  console.log('applying migrations...');
  const build = buildApps(root, entries, log);
  const { applied } = await migrate(config.databaseUrl).catch((error: Error) => {
    console.error(`could not migrate ${new URL(config.databaseUrl).host}: ${error.message}`);
    console.error('Is PostgreSQL running there, and may the user in DATABASE_URL create databases? (the database itself is created when missing)');
    process.exit(1);
  });
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  if (!(await build.done)) {
    console.error('could not build the apps (the error is above)');
    process.exit(1);
  }

  // node runs each app itself, so a signal reaches the app and not a wrapper
  const apps = entries.map(({ name, bundle }) => ({ name, command: process.execPath, args: ['--enable-source-maps', path.join(root, bundle)] }));
  // development: one readable line per log event; production: the apps' JSON as it is
  const formatLine = isProduction ? undefined : (await import('./dev-log.ts')).readableLogLines(Boolean(process.stdout.isTTY));
  const supervisor = superviseApps(apps, { env: { ...localEnv, ...process.env }, restartCrashed: !isProduction, log, formatLine });
  reportReadiness(entries, config, startedAt, log);
  const stop = () => supervisor.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  supervisor.stopped.then(() => process.exit(1));

  const api = `http://localhost:${config.apiPort}`;
  console.log(`
Tidings is starting${isProduction ? '' : ' (a crashed app is restarted, with a growing wait)'}:
  API            ${api}/v1   (reference: ${api}/docs, OpenAPI: /v1/openapi.json, health: /healthz, /readyz); metrics: http://localhost:${config.apiMetricsPort}/metrics
  webhook-worker delivers signed webhook events; metrics: http://localhost:${config.webhooks.workerMetricsPort}/metrics
  send-worker    queues ${config.sendWorker.queues.join(', ')}; email via ${config.providerLists.email.join(', then ')}, SMS via ${config.providerLists.sms.join(', then ')} (sk_test_ keys: always the sandbox); metrics: http://localhost:${config.sendWorker.metricsPort}/metrics
  Dashboard      http://localhost:${config.dashboardPort}   (queues: /admin/queues); metrics: http://localhost:${config.dashboardMetricsPort}/metrics
  SMTP           ${config.smtpSubmission.publicHost}:${config.smtpSubmission.port} (STARTTLS) and :${config.smtpSubmission.tlsPort} (TLS); user: any, password: an API key (docs/smtp.md); metrics: http://localhost:${config.smtpSubmission.metricsPort}/metrics

Your first organization, key and message (README, "Quick start"):
  export $(npx tidings orgs create --name Acme --test --env)     # TIDINGS_ORG_ID and an sk_test_ TIDINGS_API_KEY
  curl ${api}/v1/messages -H "Authorization: Bearer $TIDINGS_API_KEY" -H 'Content-Type: application/json' \\
    -d '{"channelType":"email","to":"ada@example.com","subject":"Hello","text":"Hi Ada"}'
  npx tidings users create --org $TIDINGS_ORG_ID --email you@example.com     # your dashboard sign-in, in that organization
`);
}

main();
