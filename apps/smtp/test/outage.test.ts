import { createTestDeps, startTcpProxy, testDatabaseUrl, waitFor, type TcpProxy } from '@tidings/testing';
import { refusal, setupSmtp } from './setup.ts';

// The server's own connections go through proxies that a test cuts (Postgres or Redis "went away"); the test's
// assertions use connections of their own.
let t: Awaited<ReturnType<typeof setupSmtp>>;
let check: ReturnType<typeof createTestDeps>;
let dbProxy: TcpProxy;
let redisProxy: TcpProxy;
beforeAll(async () => {
  const database = new URL(process.env.TEST_DATABASE_URL ?? testDatabaseUrl().url);
  dbProxy = await startTcpProxy(Number(database.port || 5432), database.hostname);
  redisProxy = await startTcpProxy(6379);
  database.host = `${dbProxy.host}:${dbProxy.port}`;
  const env = { DATABASE_URL: database.toString(), REDIS_URL: `redis://${redisProxy.host}:${redisProxy.port}`, SMTP_SUBMISSION_PORT: '0', SMTPS_PORT: '0' };
  // a failed Message-ID reservation that could not be freed is free again within a second
  t = await setupSmtp({}, createTestDeps({ ...env, IDEMPOTENCY_LEASE_MS: '1000', API_KEY_CACHE_TTL_MS: '5000' }));
  check = createTestDeps();
});
afterAll(async () => {
  await t.close();
  await check.close();
  await Promise.all([dbProxy.close(), redisProxy.close()]);
});

const mail = (subject: string) => ({ from: 'hi@acme.test', to: 'ada@example.com', subject, text: 'x', messageId: `<${subject.replace(/\W/g, '-')}-${Date.now()}@client.test>` });

describe.each([
  ['Postgres', () => dbProxy],
  ['Redis', () => redisProxy],
])('%s unavailable', (store, proxyOf) => {
  it(`answers 451 4.3.0 with nothing half-made, and the client's retry of the same mail succeeds once ${store} is back`, async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    // authenticated while the stores answer (the key is then cached), as a pooled client's connection is
    const client = t.client(key, { pool: true });
    await client.sendMail(mail(`${store} before`));
    const during = mail(`${store} during`);
    proxyOf().cut();
    try {
      const { code, response } = await refusal(client.sendMail(during));
      expect(code).toBe(451);
      expect(response).toBe('451 4.3.0 Temporary local problem: nothing was queued; try again later');
    } finally {
      proxyOf().restore();
    }
    expect(await check.db.message.count({ where: { orgId, subject: during.subject } })).toBe(0);
    expect(await check.db.attachmentContent.count({ where: { orgId } })).toBe(0);

    // the retry, as a client does after a 4xx: the same mail and Message-ID, now one message
    const info = await waitFor(
      () =>
        client.sendMail(during).catch((error: { responseCode?: number }) => {
          if ((error.responseCode ?? 0) >= 500) throw error;
          return undefined; // 4xx or a dropped connection: try again
        }),
      30_000,
      'the retry to be accepted',
    );
    expect(info.response).toMatch(/^250 2\.0\.0 queued as msg_/);
    expect(await check.db.message.count({ where: { orgId, subject: during.subject } })).toBe(1);
  }, 90_000);
});
