import { startTcpProxy, testDatabaseUrl, waitFor, type TcpProxy } from '@tidings/testing';
import { cutTwice, killSendWorkersInTurn } from '../faults/injections.ts';
import { runScenario } from '../faults/scenario.ts';
import { answers, startPgBouncer } from './servers.ts';

// The fault suite's send and drain scenarios with every process working through PgBouncer in transaction mode
// (tests/faults has them directly on Postgres): send-workers SIGKILLed, and Postgres going away behind the pooler.
/** Emails per scenario: REPLICA_MESSAGES, as the rest of the suite (CI runs a small number). */
const MESSAGES = Number(process.env.REPLICA_MESSAGES || 2000);

const { url: databaseUrl } = testDatabaseUrl();
let proxy: TcpProxy;
let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;

beforeAll(async () => {
  // PgBouncer reaches Postgres through a proxy the restart scenario cuts; uncut, it only passes the bytes on
  const primary = new URL(databaseUrl);
  proxy = await startTcpProxy(Number(primary.port || 5432), primary.hostname);
  bouncer = await startPgBouncer(databaseUrl, { statementTimeoutMs: 300_000, poolSize: 20, server: proxy });
}, 120_000);

afterAll(async () => {
  await bouncer?.remove();
  await proxy?.close();
});

const throughPgBouncer = () => ({ env: { DATABASE_URL: bouncer.url, DATABASE_PREPARED_STATEMENTS: 'false' }, messages: MESSAGES });

it(`through PgBouncer, loses and doubles nothing while send-workers are SIGKILLed and restarted, ${MESSAGES} emails`, async () => {
  const { verdict } = await runScenario('send-worker SIGKILL loop through PgBouncer', { sendWorkers: 2, ...throughPgBouncer() }, killSendWorkersInTurn);
  expect(verdict.providerRequests).toBeGreaterThan(verdict.emailsAccepted);
});

it(`through PgBouncer, loses and doubles nothing when Postgres goes away behind it twice mid-load, ${MESSAGES} emails`, async () => {
  let connectionsBeforeCut = 0;
  const secondsBack: number[] = [];
  await runScenario('Postgres away behind PgBouncer', throughPgBouncer(), async (_rig, reached) => {
    connectionsBeforeCut = await cutTwice(proxy, reached, async () => {
      const restored = performance.now();
      await waitFor(() => answers(bouncer.url), 60_000, 'a statement through PgBouncer once Postgres is back');
      secondsBack.push((performance.now() - restored) / 1000);
    });
  });
  expect(proxy.connectionCount()).toBeGreaterThan(connectionsBeforeCut); // PgBouncer connected to it again
  // a failed server login is tried again after server_login_retry: 1 s as documented, not the default 15 s, during
  // which every client's statement fails at once (measured at 200 emails: 550 client retries against 147)
  console.log(`PgBouncer served again ${secondsBack.map((s) => s.toFixed(1)).join(' and ')} s after Postgres came back`);
  expect(Math.max(...secondsBack)).toBeLessThan(5);
});
