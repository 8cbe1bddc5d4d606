// The operator's commands beyond creating things: list, suspend and resume organizations, list people and reset a
// password, create and rotate keys, and the install's status. Each runs bin/tidings.js as a process, against the
// test database and the local Redis.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beginTwoFactorEnrolment, confirmTwoFactorEnrolment, createSession, hashKey, takeProviderSlot, verifyCredentials } from '@tidings/core';
import { Secret, TOTP } from 'otpauth';
import { opsRoutes } from '@tidings/runtime';
import { createTestDeps, freePort, serveHttp, waitFor, type RunningServer, type TestDeps } from '@tidings/testing';
import { Hono } from 'hono';

const run = promisify(execFile);
// every test runs several commands as processes, each connecting to Postgres and Redis: on a loaded machine, minutes
jest.setTimeout(400_000);
const bin = path.resolve(__dirname, '../bin/tidings.js');
const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL!, LOG_LEVEL: 'silent' };

async function tidings(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const ok = async (...args: string[]) => {
  const res = await tidings(args);
  expect([args.join(' '), res.code, res.stderr]).toEqual([args.join(' '), 0, expect.any(String)]);
  return JSON.parse(res.stdout);
};

let deps: TestDeps;
beforeAll(() => {
  deps = createTestDeps();
});
afterAll(() => deps.close());

describe('tidings orgs list, suspend and resume', () => {
  it('lists every organization with its state; suspend and resume change it, and only that organization', async () => {
    const acme = (await ok('orgs', 'create', '--name', 'Suspend me')).organization;
    const other = (await ok('orgs', 'create', '--name', 'Bystander', '--test')).organization;

    const listed = (await ok('orgs', 'list')).data as { id: string }[];
    expect(listed.find((org) => org.id === acme.id)).toEqual({
      id: acme.id,
      name: 'Suspend me',
      createdAt: acme.createdAt,
      suspendedAt: null,
      liveKeysAllowed: true,
      members: 0,
      apiKeys: 1,
    });
    expect(listed.find((org) => org.id === other.id)).toMatchObject({ liveKeysAllowed: false, suspendedAt: null });

    const suspended = await ok('orgs', 'suspend', acme.id);
    expect(suspended.suspendedAt).toEqual(expect.any(String));
    expect((await deps.db.organization.findUniqueOrThrow({ where: { id: acme.id } })).suspendedAt).not.toBeNull();
    expect((await deps.db.organization.findUniqueOrThrow({ where: { id: other.id } })).suspendedAt).toBeNull();
    // suspending again keeps the first time
    expect((await ok('orgs', 'suspend', acme.id)).suspendedAt).toBe(suspended.suspendedAt);

    expect((await ok('orgs', 'resume', acme.id)).suspendedAt).toBeNull();
    expect((await deps.db.organization.findUniqueOrThrow({ where: { id: acme.id } })).suspendedAt).toBeNull();

    const unknown = await tidings(['orgs', 'suspend', 'org_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: Organization not found\n');
  });
});

describe('tidings users list and reset-password', () => {
  it('lists people with their memberships, all or of one organization', async () => {
    const org = (await ok('orgs', 'create', '--name', 'People list')).organization;
    const email = `lister-${Date.now()}@example.com`;
    await ok('users', 'create', '--org', org.id, '--email', email, '--password', 'long enough pw');

    const ofOrg = (await ok('users', 'list', '--org', org.id)).data;
    expect(ofOrg).toEqual([
      {
        id: expect.stringMatching(/^usr_/),
        email,
        name: null,
        createdAt: expect.any(String),
        memberships: [{ orgId: org.id, orgName: 'People list', role: 'owner', requiresTwoFactor: false }],
      },
    ]);
    expect(JSON.stringify(ofOrg)).not.toMatch(/passwordHash|scrypt/);
    const all = (await ok('users', 'list')).data as { email: string }[];
    expect(all.map((user) => user.email)).toContain(email);

    const unknown = await tidings(['users', 'list', '--org', 'org_nope']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: Organization not found\n']);
  });

  it('sets a generated password printed once, or the given one, and signs the person out everywhere', async () => {
    const org = (await ok('orgs', 'create', '--name', 'Reset')).organization;
    const email = `reset-${Date.now()}@example.com`;
    const { user } = await ok('users', 'create', '--org', org.id, '--email', email, '--password', 'the old password');
    await createSession(deps, user.id, org.id);
    await createSession(deps, user.id, org.id);

    const reset = await ok('users', 'reset-password', '--email', email.toUpperCase());
    expect(reset).toEqual({ user: expect.objectContaining({ id: user.id, email }), signedOut: 2, password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) });
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(0);
    expect(await verifyCredentials(deps, email, reset.password)).toMatchObject({ id: user.id });
    expect(await verifyCredentials(deps, email, 'the old password')).toBeNull();

    const chosen = await ok('users', 'reset-password', '--email', email, '--password', 'a chosen password');
    expect(chosen.password).toBeUndefined();
    expect(await verifyCredentials(deps, email, 'a chosen password')).toMatchObject({ id: user.id });

    const short = await tidings(['users', 'reset-password', '--email', email, '--password', 'short']);
    // a value the command refuses exits 2, like a bad argument (docs/cli.md)
    expect([short.code, short.stderr]).toEqual([2, 'error: password: must be at least 10 characters\n']);
    const nobody = await tidings(['users', 'reset-password', '--email', 'nobody@example.com']);
    expect([nobody.code, nobody.stderr]).toEqual([1, 'error: User not found\n']);
  });

  it('reset-2fa turns a person’s second factor off and signs them out everywhere', async () => {
    const org = (await ok('orgs', 'create', '--name', 'Lost phone')).organization;
    const email = `lost-phone-${Date.now()}@example.com`;
    const { user } = await ok('users', 'create', '--org', org.id, '--email', email, '--password', 'the old password');
    const { secret } = await beginTwoFactorEnrolment(deps, user.id);
    await confirmTwoFactorEnrolment(deps, user.id, new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await createSession(deps, user.id, org.id);

    expect(await ok('users', 'reset-2fa', '--email', email)).toEqual({ userId: user.id, wasEnabled: true, signedOut: 1 });
    expect(await deps.db.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({ totpSecretCiphertext: null, totpEnabledAt: null, recoveryCodeHashes: [] });
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(0);
    const nobody = await tidings(['users', 'reset-2fa', '--email', 'nobody@example.com']);
    expect([nobody.code, nobody.stderr]).toEqual([1, 'error: User not found\n']);
  });
});

describe('tidings keys create and rotate', () => {
  it('creates keys printed once, by mode and permission; refuses a live key to a test organization', async () => {
    const org = (await ok('orgs', 'create', '--name', 'Keys')).organization;
    const live = await ok('keys', 'create', '--org', org.id, '--name', 'CI deploys', '--permission', 'sending');
    expect(live).toMatchObject({ name: 'CI deploys', permission: 'sending', mode: 'live', key: expect.stringMatching(/^sk_live_/) });
    const stored = await deps.db.apiKey.findUniqueOrThrow({ where: { id: live.id } });
    expect(stored).toMatchObject({ orgId: org.id, keyHash: hashKey(live.key) });

    const test = await ok('keys', 'create', '--org', org.id, '--name', 'sandbox', '--mode', 'test');
    expect(test).toMatchObject({ mode: 'test', permission: 'full', key: expect.stringMatching(/^sk_test_/) });

    const sandboxOrg = (await ok('orgs', 'create', '--name', 'Test only', '--test')).organization;
    expect((await ok('keys', 'create', '--org', sandboxOrg.id, '--name', 'default mode')).mode).toBe('test');
    const refused = await tidings(['keys', 'create', '--org', sandboxOrg.id, '--name', 'x', '--mode', 'live']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: This organization was created for testing: live keys are not allowed/);

    const unknown = await tidings(['keys', 'create', '--org', 'org_nope', '--name', 'x']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: Organization not found\n']);
  });

  it('rotates a key: the old secret overlaps 24 hours, or stops with --immediately; another organization’s key is not found', async () => {
    const { organization: org, apiKey: firstKey } = await ok('orgs', 'create', '--name', 'Rotate');
    const created = await ok('keys', 'create', '--org', org.id, '--name', 'to rotate');

    const rotated = await ok('keys', 'rotate', '--org', org.id, '--key', created.id);
    expect(rotated.key).toMatch(/^sk_live_/);
    expect(rotated.key).not.toBe(created.key);
    let row = await deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row).toMatchObject({ keyHash: hashKey(rotated.key), previousKeyHash: hashKey(created.key) });
    const overlapHours = (row.previousKeyExpiresAt!.getTime() - Date.now()) / 3_600_000;
    expect(overlapHours).toBeGreaterThan(23.9);
    expect(overlapHours).toBeLessThanOrEqual(24);

    const again = await ok('keys', 'rotate', '--org', org.id, '--key', created.id, '--immediately');
    row = await deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row).toMatchObject({ keyHash: hashKey(again.key), previousKeyHash: null, previousKeyExpiresAt: null });

    const { organization: stranger, apiKey: strangerKey } = await ok('orgs', 'create', '--name', 'Stranger');
    const foreign = await tidings(['keys', 'rotate', '--org', stranger.id, '--key', created.id]);
    expect([foreign.code, foreign.stderr]).toEqual([1, 'error: API key not found\n']);
    expect((await deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).keyHash).toBe(hashKey(again.key));

    // audited as the CLI's doing (each organization's first key too); the refused rotation left no row
    const audit = await deps.db.auditEvent.findMany({ where: { orgId: { in: [org.id, stranger.id] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(audit.map((e) => [e.orgId, e.action, e.targetId, e.actorType, e.actorId, e.ip])).toEqual([
      [org.id, 'apiKey.created', firstKey.id, 'cli', null, null],
      [org.id, 'apiKey.created', created.id, 'cli', null, null],
      [org.id, 'apiKey.rotated', created.id, 'cli', null, null],
      [org.id, 'apiKey.rotated', created.id, 'cli', null, null],
      [stranger.id, 'apiKey.created', strangerKey.id, 'cli', null, null],
    ]);
  });
});

describe('tidings status', () => {
  let api: RunningServer;
  let ports: Record<string, string>;
  beforeAll(async () => {
    // the API's ops port, as the API serves it (real readiness of the test's Postgres and Redis); the other apps
    // are not running: their ports are free ones nobody listens on
    api = await serveHttp(new Hono().route('/', opsRoutes(deps)).fetch);
    await deps.readiness(); // its connections open, so its first /readyz is not the one that connects
    ports = {
      API_METRICS_PORT: String(api.port),
      DASHBOARD_METRICS_PORT: String(await freePort()),
      SEND_WORKER_METRICS_PORT: String(await freePort()),
      WEBHOOK_WORKER_METRICS_PORT: String(await freePort()),
      SMTP_METRICS_PORT: String(await freePort()),
    };
  });
  afterAll(() => api.close());

  it('reports the stores, migrations, queues, providers and each app; exits 1 while an app does not answer', async () => {
    const res = await tidings(['status'], ports);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^postgres +ok$/m);
    expect(res.stdout).toMatch(/^redis +ok$/m);
    expect(res.stdout).toMatch(/^migrations +\d+ applied, none pending$/m);
    expect(res.stdout).toMatch(/^queue email +\d+ waiting, \d+ active, \d+ delayed, \d+ failed$/m);
    expect(res.stdout).toMatch(/^email providers +sandbox$/m);
    expect(res.stdout).toMatch(new RegExp(`^api +ready at http://127.0.0.1:${api.port}/readyz$`, 'm'));
    expect(res.stdout).toMatch(/^send-worker +not answering at http:\/\/127.0.0.1:\d+\/readyz$/m);

    const asJson = await tidings(['status', '--json'], ports);
    const report = JSON.parse(asJson.stdout);
    expect(report).toMatchObject({ postgres: 'ok', redis: 'ok', migrations: { pending: [] }, providers: { email: ['sandbox'], sms: ['sandbox'] } });
    expect(Object.keys(report.queues)).toEqual(['email', 'sms', 'webhooks', 'maintenance', 'broadcasts', 'email-bulk', 'sms-bulk', 'webhooks-bulk', 'segment-counts']);
    expect(report.apps.map((app: { app: string; state: string }) => [app.app, app.state])).toEqual([
      ['api', 'ready'],
      ['dashboard', 'not answering'],
      ['send-worker', 'not answering'],
      ['webhook-worker', 'not answering'],
      ['smtp', 'not answering'],
    ]);
  });

  it('exits 0 when every app is ready', async () => {
    const everyAppHere = {
      API_METRICS_PORT: ports.API_METRICS_PORT!,
      DASHBOARD_METRICS_PORT: ports.API_METRICS_PORT!,
      SEND_WORKER_METRICS_PORT: ports.API_METRICS_PORT!,
      WEBHOOK_WORKER_METRICS_PORT: ports.API_METRICS_PORT!,
      SMTP_METRICS_PORT: ports.API_METRICS_PORT!,
    };
    const res = await tidings(['status'], everyAppHere);
    expect([res.code, res.stdout.match(/ ready at /g)?.length]).toEqual([0, 5]);
  });

  it("shows each paced provider account's rate, use and deferrals, and each SMS number sent through lately", async () => {
    const paced = { EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_test_key', RESEND_RATE_PER_SECOND: '5', REDIS_PREFIX: `test:pace-${Date.now()}` };
    const sender = createTestDeps(paced);
    try {
      const resend = { name: 'resend', provider: 'resend', ratePerSecond: 5, reason: 'provider_rate_limit' } as const;
      for (let i = 0; i < 3; i++) await takeProviderSlot(sender, resend, 'transactional', { reserve: true });
      // a long code at 1 a second: the second send is deferred to the next slot
      const number = { name: 'telnyx:+16285550199', provider: 'telnyx', ratePerSecond: 1, reason: 'sender_rate_limit' } as const;
      for (let i = 0; i < 2; i++) await takeProviderSlot(sender, number, 'transactional', { reserve: true });
      await waitFor(async () => (await sender.rateLimits.connection.zcard(`${paced.REDIS_PREFIX}:pace-accounts:{seen}`)) === 2, 10_000, 'the accounts noted');

      // both at once: use and deferrals a second are counted over the last 10 s, sliding, and one CLI process after the
      // other took over 10 s on a loaded machine (the second then read no deferral left in the window)
      const [res, json] = await Promise.all([tidings(['status'], { ...ports, ...paced }), tidings(['status', '--json'], { ...ports, ...paced })]);
      expect(res.stdout).toMatch(/^pace resend +rate 5\/s, using 0\.[1-3]\d*\/s, 0 deferred\/s$/m);
      expect(res.stdout).toMatch(/^pace telnyx \+16285550199 +rate 1\/s, using 0\.[12]\d*\/s, 0\.\d+ deferred\/s(, booked \d+\.\d s ahead)?$/m);
      const report = JSON.parse(json.stdout);
      expect(report.pace).toEqual([
        { provider: 'resend', account: 'resend', ratePerSecond: 5, usePerSecond: expect.any(Number), deferralsPerSecond: 0, bookedAheadMs: expect.any(Number) },
        {
          provider: 'telnyx',
          account: '+16285550199',
          ratePerSecond: 1,
          usePerSecond: expect.any(Number),
          deferralsPerSecond: expect.any(Number),
          bookedAheadMs: expect.any(Number),
        },
      ]);
      expect(report.pace[1].deferralsPerSecond).toBeGreaterThan(0);
    } finally {
      await sender.close();
    }
  });

  it('says which store does not answer, within seconds, instead of hanging', async () => {
    const started = Date.now();
    const res = await tidings(['status', '--json'], { ...ports, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ postgres: 'ok', redis: 'unreachable', queues: null, pace: null, migrations: { pending: [] } });
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
