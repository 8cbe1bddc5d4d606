// The README's quick start, as written: its commands are read from README.md (scripts/readme-commands.ts) and run
// in a shell against a database that does not exist yet, with `npm start` running the real apps. Only the ports
// differ (free ones, so parallel runs do not collide), and `npm ci` / `npm test` are not run from inside a test.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, testDatabaseUrl, waitFor } from '@tidings/testing';
import { Client } from 'pg';
import { readmeCommands, withoutComment } from '../../../scripts/readme-commands.ts';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const commands = readmeCommands(readFileSync(path.join(root, 'README.md'), 'utf8'));

const database = (() => {
  const { adminUrl, url: testUrl, name } = testDatabaseUrl();
  const url = new URL(testUrl);
  url.pathname = `/${name}_quickstart_${randomUUID().slice(0, 8)}`;
  return { adminUrl, url: url.toString(), name: url.pathname.slice(1) };
})();

let apiPort = 0;
let dashboardPort = 0;
let env: NodeJS.ProcessEnv = {};
let start: ChildProcess;
let startLog = '';

/** Polls `read` until it returns a value, or fails naming `what` (and what npm start said) after `timeoutMs`. */
async function eventually<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const found = await waitFor(
    () =>
      read().then(
        (value) => (value === undefined ? null : { value }),
        () => null,
      ),
    timeoutMs,
    what,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; npm start said:\n${startLog.slice(-3000)}`);
  });
  return found.value;
}

const answers = (url: string) => fetch(url).then((res) => (res.ok ? true : undefined));

/** The README's text with this run's ports: what a newcomer types, pointed at this test's apps. */
const withPorts = (command: string) => command.replaceAll('localhost:3000', `localhost:${apiPort}`).replaceAll('localhost:3001', `localhost:${dashboardPort}`);

/** Runs commands in one bash, `set -e`, and returns each one's output and the TIDINGS_ variables they left. */
async function shell(lines: string[]): Promise<{ outputs: string[]; vars: Record<string, string> }> {
  const marker = '@@end-of-command@@';
  const script = ['set -euo pipefail', ...lines.flatMap((line) => [withPorts(line), `echo ${marker}`]), 'env | grep ^TIDINGS_ || true'].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd: root, env, maxBuffer: 10 * 1024 * 1024 });
  const pieces = stdout.split(`${marker}\n`);
  const vars = Object.fromEntries(
    pieces
      .pop()!
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { outputs: pieces.map((piece) => piece.trim()), vars };
}

beforeAll(async () => {
  [apiPort, dashboardPort] = [await freePort(), await freePort()];
  // every ops port a real one: npm start asks each app's /readyz there and says when it is ready
  const ports = [
    'API_METRICS_PORT',
    'DASHBOARD_METRICS_PORT',
    'SEND_WORKER_METRICS_PORT',
    'WEBHOOK_WORKER_METRICS_PORT',
    'SMTP_METRICS_PORT',
    'SMTP_SUBMISSION_PORT',
    'SMTPS_PORT',
  ];
  const free: Record<string, string> = {};
  for (const name of ports) free[name] = String(await freePort());
  env = {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_PREFIX: `quickstart-${randomUUID().slice(0, 8)}`,
    API_PORT: String(apiPort),
    DASHBOARD_PORT: String(dashboardPort),
    ...free,
    PUBLIC_API_URL: `http://localhost:${apiPort}`,
    LOG_LEVEL: 'warn',
  };
  expect(commands[0]).toBe('npm ci && npm start');
  // its own process group, so the whole tree (npm, the supervisor, four apps) stops together
  start = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  start.stdout!.on('data', (chunk) => (startLog += chunk));
  start.stderr!.on('data', (chunk) => (startLog += chunk));
  await eventually(() => answers(`http://127.0.0.1:${apiPort}/readyz`), 'the API to be ready', 120_000);
  await eventually(() => answers(`http://127.0.0.1:${dashboardPort}/healthz`), 'the dashboard to answer', 60_000);
  await eventually(async () => (startLog.includes('every app is ready') ? true : undefined), 'npm start to say every app is ready', 120_000);
}, 300_000);

afterAll(async () => {
  if (start?.pid && start.exitCode === null) {
    const exited = new Promise((resolve) => start.once('exit', resolve));
    process.kill(-start.pid, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-start.pid!, 'SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  const admin = new Client({ connectionString: database.adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`);
  await admin.end();
}, 60_000);

describe("the README's quick start", () => {
  it('npm start says when each app is ready, and then that all are, with the time since it began', () => {
    for (const app of ['api', 'webhook-worker', 'send-worker', 'dashboard', 'smtp']) {
      expect(startLog).toMatch(new RegExp(`\\[start\\] \\S+ ${app} is ready \\([\\d.]+ s after npm start\\)`));
    }
    expect(startLog).toMatch(/\[start\] \S+ every app is ready, [\d.]+ s after npm start/);
  });

  it('created the database, and the start banner links the API reference', async () => {
    expect(startLog).toContain('applying migrations...');
    expect(startLog).toContain(`reference: http://localhost:${apiPort}/docs`);
    expect(startLog).not.toMatch(/createdb/);
    expect((await fetch(`http://127.0.0.1:${apiPort}/docs`)).status).toBe(200);
  });

  it('sends a first email and SMS with the commands as written, and both are delivered', async () => {
    const steps = commands.slice(1).filter((command) => withoutComment(command) !== 'npm test');
    const { outputs, vars } = await shell(steps);
    expect(vars.TIDINGS_ORG_ID).toMatch(/^org_/);
    expect(vars.TIDINGS_API_KEY).toMatch(/^sk_test_/);

    const sent = outputs.filter((output) => output.startsWith('{"id":"msg_')).map((output) => JSON.parse(output));
    expect(sent.map((message) => [message.channelType, message.status])).toEqual([
      ['email', 'queued'],
      ['sms', 'queued'],
    ]);
    // the person for the dashboard: the organization's first, so its owner
    const person = JSON.parse(outputs.find((output) => output.includes('"membership"'))!);
    expect(person.membership).toMatchObject({ orgId: vars.TIDINGS_ORG_ID, orgName: 'Acme', role: 'owner' });
    expect(person.password).toMatch(/^[A-Za-z0-9_-]{20}$/);

    // the README's list command, run again until both messages are delivered
    const list = steps.find((command) => command.includes('/v1/messages?limit=2'))!;
    const delivered = await eventually(async () => {
      const { stdout } = await run('bash', ['-c', withPorts(list)], { cwd: root, env: { ...env, ...vars } });
      const page = JSON.parse(stdout) as { data: { id: string; status: string }[] };
      return page.data.length === 2 && page.data.every((message) => message.status === 'delivered') ? page : undefined;
    }, 'both messages to be delivered');
    expect(delivered.data.map((message) => message.id).sort()).toEqual(sent.map((message) => message.id).sort());
  }, 120_000);

  it('npm start restarts a crashed app after a wait, and says so', async () => {
    const pidOf = (log: string) => Number(/api started \(pid (\d+)\)/.exec(log)?.[1]);
    const firstPid = pidOf(startLog);
    expect(firstPid).toBeGreaterThan(0);
    const logBefore = startLog.length;
    process.kill(firstPid, 'SIGKILL');

    await eventually(
      async () => (/api exited \(signal SIGKILL\); restarting in [\d.]+ s \(crash 1 in a row\)/.test(startLog.slice(logBefore)) ? true : undefined),
      'the restart notice',
    );
    const secondPid = await eventually(async () => pidOf(startLog.slice(logBefore)) || undefined, 'the API to start again');
    expect(secondPid).not.toBe(firstPid);
    await eventually(() => answers(`http://127.0.0.1:${apiPort}/readyz`), 'the restarted API to be ready', 60_000);
    // the other apps were left running
    expect(startLog.slice(logBefore)).not.toMatch(/(send-worker|webhook-worker|dashboard) (exited|started)/);
  }, 120_000);
});

describe('npm start without a reachable PostgreSQL', () => {
  it('says what to check, and does not tell you to create the database (it is created when missing)', async () => {
    const unreachable = { ...process.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/tidings', LOG_LEVEL: 'silent' };
    const failed = await run('npm', ['start'], { cwd: root, env: unreachable }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('could not migrate 127.0.0.1:1');
    expect(failed.stderr).toContain('Is PostgreSQL running there, and may the user in DATABASE_URL create databases?');
    expect(failed.stderr).not.toMatch(/createdb/);
  }, 120_000);
});
