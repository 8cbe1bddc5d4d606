import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { addEmailDomain } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';

const run = promisify(execFile);
const bin = path.resolve(__dirname, '../bin/tidings.js');
const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL!, LOG_LEVEL: 'silent' };
// what a production install must have set, so the CLI starts there at all
const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_API_URL: 'https://api.example.com',
  PUBLIC_DASHBOARD_URL: 'https://dashboard.example.com',
  WEBHOOK_SECRET_KEY: '3f9a1c0e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39',
  UNSUBSCRIBE_SECRET: 'a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d',
  // production's own cost, not the suites' lowered one (refused there)
  PASSWORD_HASH_COST: '15',
};

async function tidings(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('tidings', () => {
  it('orgs create prints the organization and a live key; --test gives a test key', async () => {
    const live = await tidings('orgs', 'create', '--name', 'Acme');
    expect(live.code).toBe(0);
    const parsed = JSON.parse(live.stdout);
    expect(parsed.organization).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Acme' });
    expect(parsed.apiKey.key).toMatch(/^sk_live_/);

    const sandbox = JSON.parse((await tidings('orgs', 'create', '--name', 'Sandbox', '--test')).stdout);
    expect(sandbox.apiKey.key).toMatch(/^sk_test_/);

    const keys = await tidings('keys', 'list', '--org', parsed.organization.id);
    expect(keys.code).toBe(0);
    const listed = JSON.parse(keys.stdout).data;
    expect(listed).toHaveLength(1);
    expect(listed[0].prefix).toBe(parsed.apiKey.key.slice(0, 12));
    expect(keys.stdout).not.toContain(parsed.apiKey.key);

    const disabled = await tidings('keys', 'disable', '--org', parsed.organization.id, '--key', listed[0].id);
    expect(JSON.parse(disabled.stdout).state).toBe('disabled');
  });

  it('orgs create --env prints the organization id and key as shell assignments, for export $(...)', async () => {
    const res = await tidings('orgs', 'create', '--name', 'Shell', '--test', '--env');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^TIDINGS_ORG_ID=org_[A-Za-z0-9]+\nTIDINGS_API_KEY=sk_test_[A-Za-z0-9_-]{32}\n$/);
  });

  it('orgs allow-live lets an organization created with --test have live keys', async () => {
    const sandbox = JSON.parse((await tidings('orgs', 'create', '--name', 'Test first', '--test')).stdout);
    const refused = await tidings('keys', 'create', '--org', sandbox.organization.id, '--name', 'x', '--mode', 'live');
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining(`"tidings orgs allow-live ${sandbox.organization.id}"`) });
    const allowed = await tidings('orgs', 'allow-live', sandbox.organization.id);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({ id: sandbox.organization.id, name: 'Test first', liveKeysAllowed: true });
    expect((await tidings('orgs', 'allow-live')).code).toBe(2);
    const unknown = await tidings('orgs', 'allow-live', 'org_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Organization not found');
  });

  it('users grant-operator makes an existing person an install operator; revoke-operator undoes it; an unknown email is an error', async () => {
    const org = JSON.parse((await tidings('orgs', 'create', '--name', 'Ops', '--test')).stdout).organization;
    const email = `ops-${Date.now()}@cli.test`;
    expect((await tidings('users', 'create', '--org', org.id, '--email', email, '--role', 'member')).code).toBe(0);
    const granted = await tidings('users', 'grant-operator', '--email', email.toUpperCase());
    expect(granted.code).toBe(0);
    expect(JSON.parse(granted.stdout)).toEqual({ email, isInstallOperator: true });
    expect(JSON.parse((await tidings('users', 'revoke-operator', '--email', email)).stdout)).toEqual({ email, isInstallOperator: false });
    const unknown = await tidings('users', 'grant-operator', '--email', 'nobody@cli.test');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No account has the email nobody@cli.test');
    expect((await tidings('users', 'grant-operator')).code).toBe(2);
  });

  it('migrate on an up-to-date database applies nothing', async () => {
    const res = await tidings('migrate');
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/up to date/);
  });

  it('--help, -h and help print every command on stdout and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await tidings(...args);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^usage:\n {2}tidings migrate\n {2}tidings status/);
      expect(res.stdout).toContain('tidings keys rotate --org <orgId> --key <keyId> [--immediately]');
      expect(res.stderr).not.toMatch(/unknown command/);
    }
  });

  it("a command's --help prints that command's usage and options; a group's, its commands", async () => {
    const create = await tidings('keys', 'create', '--help');
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^usage: tidings keys create --org <orgId> --name <name> \[--mode live\|test\] \[--permission full\|sending\]\n/);
    expect(create.stdout).toMatch(/\n {2}--permission full\|sending +sending keys may only send/);
    expect(create.stdout).not.toContain('tidings orgs');

    const orgs = await tidings('orgs', '--help');
    expect(orgs.code).toBe(0);
    expect(orgs.stdout.match(/^ {2}tidings \S+ \S+/gm)).toEqual([
      '  tidings orgs create',
      '  tidings orgs list',
      '  tidings orgs allow-live',
      '  tidings orgs suspend',
      '  tidings orgs resume',
    ]);
    // help answers without a database: a configuration that could not connect is never read
    const offline = await run(process.execPath, [bin, 'users', 'reset-password', '-h'], { env: { ...env, DATABASE_URL: 'not a url' } });
    expect(offline.stdout).toMatch(/^usage: tidings users reset-password --email <email>/);
  });

  it('bad arguments print the usage and exit 2', async () => {
    for (const args of [
      ['orgs', 'create'],
      ['orgs', 'create', '--nam', 'x'],
      ['orgs', 'suspend'],
      ['orgs', 'list', 'extra'],
      ['keys', 'create', '--org', 'org_1', '--name', 'x', '--mode', 'both'],
      ['nonsense'],
      [],
    ]) {
      const res = await tidings(...args);
      expect([args.join(' '), res.code]).toEqual([args.join(' '), 2]);
      expect(res.stderr).toMatch(/usage:/);
    }
    const bogus = await tidings('orgs', 'list', '--bogus');
    expect(bogus.stderr).toMatch(/^unknown option --bogus\nusage: tidings orgs list/);
    const email = await tidings('users', 'create', '--org', 'org_1', '--email', 'not-an-email');
    expect(email).toMatchObject({ code: 2, stderr: 'error: email: must be a valid email address\n' });
    const mode = await tidings('keys', 'create', '--org', 'org_1', '--name', 'x', '--mode', 'both');
    expect(mode.stderr).toMatch(/^--mode must be live or test\nusage: tidings keys create /);
  });

  it('domains mark-verified marks a domain verified on a development install, audited; production refuses it', async () => {
    const { organization } = JSON.parse((await tidings('orgs', 'create', '--name', 'Local tour')).stdout);
    const deps = createTestDeps();
    const name = `tour-${Date.now()}.example.com`;
    try {
      await addEmailDomain(deps, organization.id, 'live', { name });
      const refused = await run(process.execPath, [bin, 'domains', 'mark-verified', '--org', organization.id, '--domain', name], {
        env: { ...env, ...PRODUCTION },
      }).catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Only a development install marks a domain verified by hand') });
      const marked = await tidings('domains', 'mark-verified', '--org', organization.id, '--domain', name);
      expect(marked.code).toBe(0);
      expect(JSON.parse(marked.stdout)).toMatchObject({ name, status: 'verified' });
      expect(JSON.parse(marked.stdout).records.every((r: { status: string }) => r.status === 'verified')).toBe(true);
      // orgs create audited its first key
      await expect(deps.db.auditEvent.findMany({ where: { orgId: organization.id, action: 'apiKey.created' } })).resolves.toMatchObject([{ actorType: 'cli' }]);
      const audit = await deps.db.auditEvent.findMany({ where: { orgId: organization.id, action: 'emailDomain.markedVerified' } });
      expect(audit).toMatchObject([{ actorType: 'cli', targetId: JSON.parse(marked.stdout).id }]);
      const unknown = await tidings('domains', 'mark-verified', '--org', organization.id, '--domain', 'other.example.com');
      expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('Domain other.example.com not found in this organization: add it first') });
    } finally {
      await deps.close();
    }
  });

  it('an unknown organization is an error, not a crash', async () => {
    const res = await tidings('keys', 'disable', '--org', 'org_nope', '--key', 'key_nope');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/API key not found/);
  });
});

describe('tidings users create', () => {
  it('adds a person to an organization, generating a password when none is given', async () => {
    const org = JSON.parse((await tidings('orgs', 'create', '--name', 'People')).stdout).organization;
    const email = `ana-${Date.now()}@example.com`;
    const created = await tidings('users', 'create', '--org', org.id, '--email', email, '--role', 'operator');
    expect(created.code).toBe(0);
    const parsed = JSON.parse(created.stdout);
    expect(parsed.user).toMatchObject({ id: expect.stringMatching(/^usr_/), email });
    expect(parsed.membership).toEqual({ orgId: org.id, orgName: 'People', role: 'operator', requiresTwoFactor: false });
    expect(parsed.password).toMatch(/^[A-Za-z0-9_-]{20}$/);

    const again = await tidings('users', 'create', '--org', org.id, '--email', email);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already a member/);
  });

  it('refuses a short password, a bad role and an unknown organization', async () => {
    const org = JSON.parse((await tidings('orgs', 'create', '--name', 'Strict')).stdout).organization;
    const short = await tidings('users', 'create', '--org', org.id, '--email', `b-${Date.now()}@example.com`, '--password', 'short');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/password: must be at least 10 characters/);
    const role = await tidings('users', 'create', '--org', org.id, '--email', 'c@example.com', '--role', 'king');
    expect(role.code).toBe(2);
    const unknown = await tidings('users', 'create', '--org', 'org_nope', '--email', 'd@example.com', '--password', 'long enough pw');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Organization not found/);
  });
});
