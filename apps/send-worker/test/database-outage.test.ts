import { startTcpProxy, testDatabaseUrl, type TcpProxy } from '@tidings/testing';
import { sleep, startPipeline, waitFor } from './harness.ts';

// The pipeline reaches Postgres through a proxy this test can cut: a job that runs while the database is away must
// come back later, not fail for good (only its job would ever move the message on).
let proxy: TcpProxy;
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  const direct = new URL(process.env.TEST_DATABASE_URL ?? testDatabaseUrl().url);
  proxy = await startTcpProxy(Number(direct.port || 5432), direct.hostname);
  direct.hostname = proxy.host;
  direct.port = String(proxy.port);
  h = await startPipeline({ DATABASE_URL: direct.toString() });
});
afterAll(async () => {
  await h.close();
  await proxy.close();
});

it('a send job that meets Postgres down runs again once it is back, and the email goes out once', async () => {
  const { api } = await h.liveOrg();
  const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'outage@example.com', subject: 'Hi', text: 'x' })).body;
  proxy.cut();
  await h.startWorker(); // takes the job at once, and cannot read the message
  await sleep(1500);
  proxy.restore();
  const done = await waitFor(
    async () => {
      const m = (await api.get(`/v1/messages/${sent.id}`)).body;
      return m.status === 'sent' ? m : null;
    },
    20_000,
    'the message to be sent',
  );
  expect(h.resend.state.emails.filter((e) => e.to.includes('outage@example.com'))).toHaveLength(1);
  expect(done.events.map((e: { status: string }) => e.status)).toEqual(['queued', 'sending', 'sent']);
});
