import { productionProblems } from './index.ts';

const ready = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://tidings@postgres:5432/tidings',
  DATABASE_PASSWORD: 'k/7+Qz@9:%41w=Rm#p1',
  REDIS_URL: 'redis://redis:6379',
  PUBLIC_API_URL: 'https://api.example.com',
  PUBLIC_DASHBOARD_URL: 'https://dashboard.example.com',
  WEBHOOK_SECRET_KEY: '3f9a1c0e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39',
  UNSUBSCRIBE_SECRET: 'a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d',
  // this file and its own name stand in for a certificate and key that exist
  SMTP_TLS_CERT: __filename,
  SMTP_TLS_KEY: '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----',
};
const names = (env: Record<string, string | undefined>) => productionProblems(env).map((p) => p.name);

describe('productionProblems (tidings doctor)', () => {
  it('finds nothing in an environment ready for production', () => {
    expect(productionProblems(ready)).toEqual([]);
  });

  it('lists every missing setting at once, each with how to fix it', () => {
    const problems = productionProblems({});
    expect(problems.map((p) => p.name)).toEqual([
      'NODE_ENV',
      'REDIS_URL',
      'PUBLIC_API_URL',
      'PUBLIC_DASHBOARD_URL',
      'DATABASE_URL',
      'WEBHOOK_SECRET_KEY',
      'UNSUBSCRIBE_SECRET',
      'SMTP_TLS_CERT',
    ]);
    expect(problems.find((p) => p.name === 'UNSUBSCRIBE_SECRET')?.problem).toBe(
      'is not set. It signs the unsubscribe links in broadcasts. Generate one with `openssl rand -hex 32`.',
    );
    // an empty value (KEY= in a .env) is a missing one
    expect(names({ ...ready, UNSUBSCRIBE_SECRET: '' })).toEqual(['UNSUBSCRIBE_SECRET']);
  });

  it('names a missing SMTP certificate or key file, and the command that makes one', () => {
    const problems = productionProblems({ ...ready, SMTP_TLS_CERT: '/smtp-tls/cert.pem', SMTP_TLS_KEY: '/smtp-tls/key.pem' });
    expect(problems.map((p) => p.name)).toEqual(['SMTP_TLS_CERT', 'SMTP_TLS_KEY']);
    expect(problems[0]!.problem).toMatch(
      /^names \/smtp-tls\/cert\.pem, which does not exist: the SMTP app would exit at start\. Make a self-signed pair with `mkdir -p smtp-tls && openssl req -x509 /,
    );
    expect(names({ ...ready, SMTP_TLS_CERT: undefined, SMTP_TLS_KEY: undefined })).toEqual(['SMTP_TLS_CERT']);
    expect(names({ ...ready, SMTP_TLS_KEY: undefined })).toEqual(['SMTP_TLS_KEY']);
  });

  it('calls short, placeholder and shared secrets weak, without repeating them', () => {
    const weak = { ...ready, WEBHOOK_SECRET_KEY: 'short-but-16-chars', UNSUBSCRIBE_SECRET: 'x'.repeat(40) };
    const problems = productionProblems(weak);
    expect(problems.map((p) => p.name)).toEqual(['WEBHOOK_SECRET_KEY', 'UNSUBSCRIBE_SECRET']);
    expect(problems[0]!.problem).toMatch(/^is 18 characters long; use at least 32 random ones\./);
    expect(problems[1]!.problem).toMatch(/^looks like a placeholder/);
    expect(JSON.stringify(problems)).not.toMatch(/short-but|xxxx/);
    expect(names({ ...ready, UNSUBSCRIBE_SECRET: 'changeme-changeme-changeme-1234567890' })).toEqual(['UNSUBSCRIBE_SECRET']);
    expect(productionProblems({ ...ready, UNSUBSCRIBE_SECRET: ready.WEBHOOK_SECRET_KEY })).toEqual([
      { name: 'UNSUBSCRIBE_SECRET', problem: 'is the same value as WEBHOOK_SECRET_KEY: give each its own. Generate one with `openssl rand -hex 32`.' },
    ]);
  });

  it('wants a database password, https public addresses, NODE_ENV=production and no loopback webhooks', () => {
    const { DATABASE_PASSWORD: _, ...withoutPassword } = ready;
    expect(names(withoutPassword)).toEqual(['DATABASE_PASSWORD']);
    expect(names({ ...withoutPassword, DATABASE_URL: 'postgresql://tidings:long-enough-password-1@db/tidings' })).toEqual([]);
    expect(names({ ...ready, DATABASE_PASSWORD: 'short' })).toEqual(['DATABASE_PASSWORD']);
    expect(names({ ...ready, PUBLIC_DASHBOARD_URL: 'http://dashboard.example.com', NODE_ENV: 'development' })).toEqual(['NODE_ENV', 'PUBLIC_DASHBOARD_URL']);
    expect(names({ ...ready, WEBHOOK_ALLOW_LOOPBACK: 'true' })).toEqual(['WEBHOOK_ALLOW_LOOPBACK']);
  });

  it('refuses password hashes cheaper than the default (the test suites lower it), and takes a costlier one', () => {
    expect(productionProblems({ ...ready, PASSWORD_HASH_COST: '14' })).toEqual([
      { name: 'PASSWORD_HASH_COST', problem: 'at least 15 in production (lower makes stolen password hashes quick to guess).' },
    ]);
    expect(names({ ...ready, PASSWORD_HASH_COST: '15' })).toEqual([]);
    expect(names({ ...ready, PASSWORD_HASH_COST: '16' })).toEqual([]);
  });

  it("adds loadConfig's own findings: bad values, providers listed without their settings", () => {
    expect(names({ ...ready, API_PORT: 'abc', EMAIL_PROVIDERS: 'ses' })).toEqual(['API_PORT', 'EMAIL_PROVIDERS', 'EMAIL_PROVIDERS', 'EMAIL_PROVIDERS']);
    expect(productionProblems({ ...ready, EMAIL_PROVIDERS: 'ses' }).map((p) => p.problem)).toEqual([
      'ses needs SES_REGION.',
      'ses needs SES_ACCESS_KEY_ID.',
      'ses needs SES_SECRET_ACCESS_KEY.',
    ]);
  });
});
