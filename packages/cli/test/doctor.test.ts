import { execFile, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = path.resolve(__dirname, '../bin/tidings.js');

/** `tidings doctor` in `cwd` with nothing of this machine's environment but PATH and `env`. */
async function doctor(cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, 'doctor'], { cwd, env: { PATH: process.env.PATH!, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const production = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://tidings@127.0.0.1:5432/tidings',
  DATABASE_PASSWORD: 'k/7+Qz@9:%41w=Rm#p1',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PUBLIC_API_URL: 'https://api.example.com',
  PUBLIC_DASHBOARD_URL: 'https://dashboard.example.com',
  // PEM text: the certificate itself (a path must name a file that exists: below)
  SMTP_TLS_CERT: '-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----',
  SMTP_TLS_KEY: '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----',
};

describe('tidings doctor', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tidings-doctor-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every missing or weak production setting at once and exits 1, showing no value', async () => {
    const res = await doctor(dir, { ...production, WEBHOOK_SECRET_KEY: 'too-short-secret-1', API_PORT: 'abc' });
    expect(res.code).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines[0]).toBe('tidings doctor: 3 settings to fix before this runs in production:');
    expect(lines.slice(1, 4).map((line) => line.trim().split(/\s+/)[0])).toEqual(['WEBHOOK_SECRET_KEY', 'UNSUBSCRIBE_SECRET', 'API_PORT']);
    expect(res.stderr).toContain('openssl rand -hex 32');
    expect(res.stderr).not.toContain('too-short-secret-1');
    expect(res.stderr).not.toContain(production.DATABASE_PASSWORD);
  }, 60_000);

  it('reads .env of the current directory, and passes once every setting is there', async () => {
    const secrets = 'WEBHOOK_SECRET_KEY=3f9a1c0e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nUNSUBSCRIBE_SECRET=a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d\n';
    writeFileSync(path.join(dir, '.env'), secrets);
    const res = await doctor(dir, production);
    expect(res).toMatchObject({ code: 0, stdout: 'tidings doctor: every setting production needs is present and strong.\n' });
  }, 60_000);

  it('fails on SMTP certificate files that do not exist, naming the command that makes them; passes once it ran', async () => {
    const paths = { SMTP_TLS_CERT: path.join(dir, 'smtp-tls/cert.pem'), SMTP_TLS_KEY: path.join(dir, 'smtp-tls/key.pem') };
    const missing = await doctor(dir, { ...production, ...paths });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`SMTP_TLS_CERT  names ${paths.SMTP_TLS_CERT}, which does not exist`);
    const command = /Make a self-signed pair with `([^`]+)`/.exec(missing.stderr)![1]!;
    execSync(command, { cwd: dir, env: { PATH: process.env.PATH!, SMTP_HOST: 'smtp.example.com' }, stdio: 'pipe' });
    expect(await doctor(dir, { ...production, ...paths })).toMatchObject({ code: 0 });
    expect(execSync(`openssl x509 -noout -subject -in ${paths.SMTP_TLS_CERT}`, { encoding: 'utf8' })).toContain('CN = smtp.example.com');
  }, 60_000);
});
