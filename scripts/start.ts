// `npm start`: migrate, then run every app on local defaults in one terminal. In production each app runs alone.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '@tidings/config';
import { migrate } from '@tidings/db';

const root = path.resolve(__dirname, '..');
const apps: { name: string; entry: string }[] = [
  { name: 'api', entry: 'apps/api/src/server.ts' },
  { name: 'webhook-worker', entry: 'apps/webhook-worker/src/worker.ts' },
  { name: 'send-worker', entry: 'apps/send-worker/src/worker.ts' },
  { name: 'dashboard', entry: 'apps/dashboard/src/server.ts' },
];
// Local defaults for the apps: webhooks may target a receiver on this machine. Never in production; a value the
// caller set wins.
const localEnv: Record<string, string> = process.env.NODE_ENV === 'production' ? {} : { WEBHOOK_ALLOW_LOOPBACK: 'true' };

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
    console.error('Is PostgreSQL running, and does the database exist? (createdb -h 127.0.0.1 -U postgres tidings)');
    process.exit(1);
  });
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');

  const children: ChildProcess[] = apps.map(({ name, entry }) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(root, entry)], { stdio: 'inherit', env: { ...localEnv, ...process.env } });
    child.on('exit', (code, signal) => {
      if (!stopping) {
        console.error(`${name} exited (${signal ?? code}); stopping the rest`);
        stop();
      }
    });
    return child;
  });

  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    setTimeout(() => process.exit(0), 16_000).unref();
    Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once('exit', resolve))))).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  console.log(`
Tidings is starting:
  API            http://localhost:${config.apiPort}/v1   (OpenAPI: /v1/openapi.json, health: /healthz, /readyz, /metrics)
  webhook-worker delivers signed webhook events (queue webhooks); metrics: http://localhost:${config.webhooks.workerMetricsPort}/metrics
  send-worker    metrics: http://localhost:${config.sendWorker.metricsPort}/metrics; queues ${config.sendWorker.queues.join(', ')}; email via ${config.resend.apiKey ? 'Resend' : 'the sandbox'}, SMS via ${config.telnyx.apiKey ? 'Telnyx' : 'the sandbox'} (sk_test_ keys: always the sandbox)
  Dashboard      http://localhost:${config.dashboardPort}      (the first sign-up creates your organization; queues: /admin/queues)

A first API key:
  npx tidings orgs create --name Acme --test     # sk_test_ key: everything stays in the sandbox
  curl -H "Authorization: Bearer sk_test_..." http://localhost:${config.apiPort}/v1/api-keys
`);
}

main();
