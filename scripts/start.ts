// `npm start`: migrate, then run every app on local defaults in one terminal. In production each app runs alone.
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '@tidings/config';
import { migrate } from '@tidings/db';
import { superviseApps } from './supervise.ts';

const root = path.resolve(__dirname, '..');
const entries: { name: string; entry: string }[] = [
  { name: 'api', entry: 'apps/api/src/server.ts' },
  { name: 'webhook-worker', entry: 'apps/webhook-worker/src/worker.ts' },
  { name: 'send-worker', entry: 'apps/send-worker/src/worker.ts' },
  { name: 'dashboard', entry: 'apps/dashboard/src/server.ts' },
  { name: 'smtp', entry: 'apps/smtp/src/server.ts' },
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
  console.log('applying migrations...');
  const { applied } = await migrate(config.databaseUrl).catch((error: Error) => {
    console.error(`could not migrate ${new URL(config.databaseUrl).host}: ${error.message}`);
    console.error('Is PostgreSQL running there, and may the user in DATABASE_URL create databases? (the database itself is created when missing)');
    process.exit(1);
  });
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');

  // node runs each app itself (tsx as a loader), so a signal reaches the app and not a wrapper
  const apps = entries.map(({ name, entry }) => ({ name, command: process.execPath, args: ['--import', 'tsx', path.join(root, entry)] }));
  const supervisor = superviseApps(apps, { env: { ...localEnv, ...process.env }, restartCrashed: !isProduction, log });
  const stop = () => supervisor.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  supervisor.stopped.then(() => process.exit(1));

  const api = `http://localhost:${config.apiPort}`;
  console.log(`
Tidings is starting${isProduction ? '' : ' (a crashed app is restarted, with a growing wait)'}:
  API            ${api}/v1   (reference: ${api}/docs, OpenAPI: /v1/openapi.json, health: /healthz, /readyz); metrics: http://localhost:${config.apiMetricsPort}/metrics
  webhook-worker delivers signed webhook events; metrics: http://localhost:${config.webhooks.workerMetricsPort}/metrics
  send-worker    queues ${config.sendWorker.queues.join(', ')}; email via ${config.resend.apiKey ? 'Resend' : 'the sandbox'}, SMS via ${config.telnyx.apiKey ? 'Telnyx' : 'the sandbox'} (sk_test_ keys: always the sandbox); metrics: http://localhost:${config.sendWorker.metricsPort}/metrics
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
