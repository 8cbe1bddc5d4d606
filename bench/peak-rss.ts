// Peak resident memory of each built process under the send bench's load (issue: < 200 MiB each). Starts the apps
// as production does (`node apps/<app>/dist/<entry>.js`, NODE_ENV=production; run `npm run build` first): the API,
// a send-worker, the webhook-worker and the dashboard; sends what `npm run bench:send` sends (message.sendBatch of
// 100, half email, half SMS, test mode so the sandbox delivers) until every message is delivered, then reads each
// process's VmHWM (the kernel's high-water mark of its RSS) from /proc/<pid>/status. Its own database and Redis
// prefix; cleans up after itself. Linux only (/proc). The apps get the NODE_OPTIONS of the image (Dockerfile).
//   npm run bench:peak-rss -- [messages=5000] [parallelRequests=4]
import './env.ts'; // first: .env fills the environment before anything reads it
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import { createOrganization } from '@tidings/core';
import { ensureDatabase, migrate } from '@tidings/db';
import { sendBatches } from './harness.ts';

const total = Number(process.argv[2] ?? 5000);
const parallel = Number(process.argv[3] ?? 4);
const root = path.resolve(__dirname, '..');
const MiB = 1024 * 1024;

type App = { name: string; entry: string; proc?: ChildProcess; port: number; log: string[]; idleRssBytes?: number };

/** VmRSS and VmHWM (bytes) of a live process, from /proc. */
function memoryOf(pid: number): { rssBytes: number; peakBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kib('VmRSS'), peakBytes: kib('VmHWM') };
}

/** CPU seconds a live process has used (user + system), from /proc: what a memory saving may cost. */
function cpuSecondsOf(pid: number): number {
  // the fields after the command name (which may hold spaces); utime and stime are the 12th and 13th of them
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks of 1/100 s on Linux
}

/** The V8 flags the image runs every app with (the Dockerfile's `ENV NODE_OPTIONS=`), so this measures what runs. */
function productionNodeOptions(): string {
  const flags = /^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
  if (!flags) throw new Error('no `ENV NODE_OPTIONS=` line in the Dockerfile');
  return flags.replace(/^"|"$/g, '');
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main() {
  const apps: App[] = [
    { name: 'api', entry: 'apps/api/dist/server.js', port: await freePort(), log: [] },
    { name: 'send-worker', entry: 'apps/send-worker/dist/worker.js', port: await freePort(), log: [] },
    { name: 'webhook-worker', entry: 'apps/webhook-worker/dist/worker.js', port: await freePort(), log: [] },
    { name: 'dashboard', entry: 'apps/dashboard/dist/server.js', port: await freePort(), log: [] },
  ];
  const missing = apps.filter((app) => !existsSync(path.join(root, app.entry)));
  if (missing.length) throw new Error(`not built: ${missing.map((app) => app.entry).join(', ')}; run \`npm run build\` first`);

  const base = loadConfig();
  const dbUrl = new URL(base.databaseUrl);
  dbUrl.pathname = '/tidings_bench_peak_rss'; // its own database: other benches may drop theirs
  const [api, sendWorker, webhookWorker, dashboard] = apps;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    NODE_OPTIONS: productionNodeOptions(),
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: base.redisUrl,
    REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
    RATE_LIMIT_PER_MINUTE: '1000000',
    SANDBOX_OUTCOME_DELAY_MS: '0',
    LOG_LEVEL: 'error',
    // production refuses to start without these; random ones for this run
    WEBHOOK_SECRET_KEY: randomBytes(24).toString('hex'),
    UNSUBSCRIBE_SECRET: randomBytes(24).toString('hex'),
    API_PORT: String(api.port),
    PUBLIC_API_URL: `http://127.0.0.1:${api.port}`,
    SEND_WORKER_METRICS_PORT: String(sendWorker.port),
    WEBHOOK_WORKER_METRICS_PORT: String(webhookWorker.port),
    DASHBOARD_PORT: String(dashboard.port),
    DASHBOARD_METRICS_PORT: '0',
  };
  const config = loadConfig(env);
  await ensureDatabase(config.databaseUrl);
  await migrate(config.databaseUrl);
  const deps = openDeps(config, 'bench');
  const { apiKey, organization } = await createOrganization(deps, { name: 'Bench', mode: 'test' });

  try {
    for (const app of apps) {
      const proc = spawn(process.execPath, [path.join(root, app.entry)], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk: Buffer) => app.log.push(...chunk.toString().split('\n').filter(Boolean).slice(-5));
      proc.stdout?.on('data', keep);
      proc.stderr?.on('data', keep);
      app.proc = proc;
    }
    for (const app of apps) {
      await waitUntil(
        async () => (await fetch(`http://127.0.0.1:${app.port}/readyz`).catch(() => null))?.ok === true,
        60_000,
        () => `${app.name} did not become ready (exit ${app.proc?.exitCode}):\n${app.log.slice(-5).join('\n')}`,
      );
      app.idleRssBytes = memoryOf(app.proc!.pid!).rssBytes;
    }

    const url = `http://127.0.0.1:${api.port}/v1/messages/batch`;
    const started = Date.now();
    await sendBatches(url, apiKey.key, total, parallel);
    await waitUntil(
      async () => (await deps.db.message.count({ where: { orgId: organization.id, status: 'delivered' } })) >= total,
      600_000,
      () => `not every message was delivered; send-worker: ${sendWorker.log.slice(-5).join('\n')}`,
    );
    const seconds = (Date.now() - started) / 1000;

    const result = {
      messages: total,
      parallelRequests: parallel,
      nodeOptions: env.NODE_OPTIONS,
      endToEndSeconds: seconds,
      processes: Object.fromEntries(
        apps.map((app) => {
          const { rssBytes, peakBytes } = memoryOf(app.proc!.pid!);
          return [
            app.name,
            {
              idleRssMiB: Math.round(app.idleRssBytes! / MiB),
              endRssMiB: Math.round(rssBytes / MiB),
              peakRssMiB: Math.round(peakBytes / MiB),
              cpuSeconds: cpuSecondsOf(app.proc!.pid!),
            },
          ];
        }),
      ),
    };
    console.table(result.processes);
    console.log(JSON.stringify(result));
    mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    writeFileSync(path.join(__dirname, 'results', 'peak-rss.json'), `${JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2)}\n`);
  } finally {
    await Promise.all(
      apps.map(async (app) => {
        if (!app.proc || app.proc.exitCode !== null || app.proc.signalCode !== null) return;
        const exited = new Promise((resolve) => app.proc?.once('exit', resolve));
        app.proc.kill('SIGTERM');
        await exited;
      }),
    );
    await deps.db.message.deleteMany({ where: { orgId: organization.id } });
    await deps.redis.eval(`for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end`, 0, `${env.REDIS_PREFIX}:*`);
    await deps.close();
  }
  process.exit(0); // the in-process schema engine of `migrate` would keep the process alive
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
