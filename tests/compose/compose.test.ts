// docker-compose.yml without a container engine: each Tidings service's command, with the environment compose would
// give it from .env.example (every empty secret made by the command its comment names), run against the built apps
// (`npm run build` first) as the image runs them, on a scratch role and database of this machine's Postgres and a
// Redis prefix of its own. Hosts postgres and redis become 127.0.0.1; the ports are free ones (this machine is
// shared) and the ops ports stay on 127.0.0.1 (the image opens them with OPS_HOST=0.0.0.0). Everything else is the
// file's own.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { freePort, testDatabaseUrl, waitFor } from '@tidings/testing';
import { Client } from 'pg';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
type Service = { command?: string[]; environment?: Record<string, string>; env_file?: string };
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const APPS = {
  api: 'API_METRICS_PORT',
  dashboard: 'DASHBOARD_METRICS_PORT',
  'send-worker': 'SEND_WORKER_METRICS_PORT',
  'webhook-worker': 'WEBHOOK_WORKER_METRICS_PORT',
  smtp: 'SMTP_METRICS_PORT',
} as const;
// compose mounts ./smtp-tls at /smtp-tls: here a folder of the test's own
const smtpTls = mkdtempSync(path.join(os.tmpdir(), 'tidings-compose-smtp-tls-'));
const suffix = testDatabaseUrl().name.replace('tidings_test_', '');
const role = `tidings_compose_${suffix}`;
const database = `tidings_compose_${suffix}`;

/** .env.example's values, each empty one made by the command in backticks after "generate:" in its comment. */
function envFromExample(): { values: Record<string, string>; generated: string[] } {
  const text = readFileSync(path.join(root, '.env.example'), 'utf8');
  const values = parseEnv(text) as Record<string, string>;
  const generated: string[] = [];
  for (const [, command, name] of text.matchAll(/# generate: `([^`]+)`\n(\w+)=\n/g)) {
    values[name!] = execSync(command!, { encoding: 'utf8' }).trim();
    generated.push(name!);
  }
  return { values, generated };
}

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} from `values`. */
function interpolate(value: string, values: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    if (values[name]) return values[name]!;
    if (kind === '?') throw new Error(`compose refuses to start: ${rest}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}

/** A service's environment as compose gives it (env_file, then environment), moved onto this machine's stores. */
function serviceEnv(service: Service, values: Record<string, string>, local: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH!, ...(service.env_file ? values : {}) };
  for (const [name, value] of Object.entries(service.environment ?? {})) env[name] = interpolate(String(value), values);
  const db = new URL(env.DATABASE_URL!);
  expect(db.hostname).toBe('postgres');
  db.hostname = '127.0.0.1';
  db.username = role;
  db.pathname = `/${database}`;
  env.DATABASE_URL = db.toString();
  env.REDIS_URL = env.REDIS_URL!.replace('//redis:', '//127.0.0.1:');
  for (const [name, value] of Object.entries(env)) if (value.startsWith('/smtp-tls/')) env[name] = path.join(smtpTls, value.slice('/smtp-tls/'.length));
  return { ...env, ...local };
}

function run(command: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return { child, output: () => output };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((resolve) => child.once('exit', resolve));

describe('docker-compose.yml with .env.example', () => {
  const admin = new Client({ connectionString: testDatabaseUrl().adminUrl });
  const { values, generated } = envFromExample();
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    const missing = Object.keys(APPS).filter((app) => !existsSync(path.join(root, 'apps', app, 'dist')));
    if (missing.length) throw new Error(`build the apps first (npm run build): no dist/ for ${missing.join(', ')}`);
    // compose's postgres service makes role `tidings` with POSTGRES_PASSWORD; here a scratch role with that password
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${values.POSTGRES_PASSWORD!.replace(/'/g, "''")}'`);
    await admin.query(`CREATE DATABASE "${database}" OWNER "${role}"`);
  });

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
    rmSync(smtpTls, { recursive: true, force: true });
  });

  it('names how to generate every secret compose requires', () => {
    const required = [...readFileSync(path.join(root, 'docker-compose.yml'), 'utf8').matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]);
    expect(generated).toEqual(expect.arrayContaining([...new Set(required)]));
    expect(generated).toEqual(expect.arrayContaining(['POSTGRES_PASSWORD', 'WEBHOOK_SECRET_KEY', 'UNSUBSCRIBE_SECRET']));
  });

  it('migrate stops at doctor, listing every missing setting, while .env.example is not filled in', async () => {
    const unfilled = { ...values, ...Object.fromEntries(generated.map((name) => [name, 'x'])) };
    delete unfilled.WEBHOOK_SECRET_KEY;
    delete unfilled.UNSUBSCRIBE_SECRET;
    const migrate = run(compose.services.migrate!.command!, serviceEnv(compose.services.migrate!, unfilled, {}));
    expect(await exited(migrate.child)).toBe(1);
    expect(migrate.output()).toMatch(/tidings doctor: \d+ settings to fix/);
    for (const name of ['WEBHOOK_SECRET_KEY', 'UNSUBSCRIBE_SECRET', 'DATABASE_PASSWORD', 'SMTP_TLS_CERT', 'SMTP_TLS_KEY']) expect(migrate.output()).toContain(name);
    expect(migrate.output()).not.toContain('applying migrations');
  }, 120_000);

  it('migrate passes doctor and migrates once .env.example’s "make:" command made the SMTP certificate; then every app, SMTP too, becomes ready', async () => {
    const make = /# make: `([^`]+)`/.exec(readFileSync(path.join(root, '.env.example'), 'utf8'))![1]!;
    // the command runs where compose's ./smtp-tls is: the test's folder stands for it
    execSync(make.replaceAll('smtp-tls', smtpTls), { env: { PATH: process.env.PATH!, SMTP_HOST: values.SMTP_HOST! }, stdio: 'pipe' });
    const prefix = `compose-${suffix}-${Date.now()}`;
    const migrate = run(compose.services.migrate!.command!, serviceEnv(compose.services.migrate!, values, {}));
    expect({ code: await exited(migrate.child), output: migrate.output() }).toMatchObject({ code: 0 });
    expect(migrate.output()).toContain('every setting production needs is present and strong');
    expect(migrate.output()).toMatch(/applied \d+/);

    const opsPorts: Record<string, number> = {};
    for (const [app, opsVariable] of Object.entries(APPS)) {
      const service = compose.services[app]!;
      opsPorts[app] = await freePort();
      const local = {
        REDIS_PREFIX: prefix,
        [opsVariable]: String(opsPorts[app]),
        API_PORT: String(await freePort()),
        DASHBOARD_PORT: String(await freePort()),
        SMTP_SUBMISSION_PORT: String(await freePort()),
        SMTPS_PORT: String(await freePort()),
      };
      const env = serviceEnv(service, values, local);
      expect(env.NODE_ENV).toBe('production');
      const started = run(service.command!, env);
      running.push(started.child);
      // readiness: stores reachable, from the ops port (what the healthchecks and an orchestrator ask)
      await waitFor(
        async () => {
          if (started.child.exitCode !== null) throw new Error(`${app} exited: ${started.output()}`);
          return fetch(`http://127.0.0.1:${opsPorts[app]}/readyz`).then(
            (res) => res.status === 200,
            () => false,
          );
        },
        60_000,
        `${app} to be ready`,
      );
    }
    // a SIGTERM drains and exits 0, as `docker compose stop` expects
    const codes = await Promise.all(
      running.map((child) => {
        child.kill('SIGTERM');
        return exited(child);
      }),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0]);
  }, 300_000);
});
