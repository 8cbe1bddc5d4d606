// Each message's final outcome is one log line and one count of tidings_messages_total{channel,status}.
import { Writable } from 'node:stream';
import { createLogger } from '@tidings/runtime';
import { sampleValue } from '@tidings/testing';
import { startPipeline, waitFor } from './harness.ts';

let h: Awaited<ReturnType<typeof startPipeline>>;
const lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  h = await startPipeline();
  h.deps.logger = createLogger(
    { level: 'info', name: 'send-worker' },
    new Writable({
      write: (chunk, _enc, done) => {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  await h.startWorker();
});
afterAll(() => h.close());

it('logs one line per final outcome (delivered, bounced, undelivered, failed, suppressed) and counts it by channel and status', async () => {
  const { api, orgId } = await h.testOrg();
  const send = async (body: Record<string, unknown>) => (await api.post('/v1/messages', body)).body.id as string;
  const email = (to: string) => send({ channelType: 'email', to, subject: 'Hi', text: 'x' });
  const ids = {
    delivered: await email('ada@example.com'),
    bounced: await email('bounce@example.com'),
    failed: await email('fail@example.com'),
    undelivered: await send({ channelType: 'sms', to: '+14155550000', body: 'x' }),
    smsDelivered: await send({ channelType: 'sms', to: '+14155550123', body: 'x' }),
  };
  const isFinal = (status: string) => ['delivered', 'bounced', 'failed', 'undelivered'].includes(status);
  const allFinal = async (messageIds: string[]) => {
    const rows = await h.deps.db.message.findMany({ where: { id: { in: messageIds } }, select: { status: true } });
    return rows.length === messageIds.length && rows.every((row) => isFinal(row.status));
  };
  await waitFor(() => allFinal(Object.values(ids)), 20_000, 'every message to reach its outcome');
  // the bounce suppressed the address: the next message to it ends without a provider call
  const suppressed = await email('bounce@example.com');
  await waitFor(() => allFinal([suppressed]), 20_000, 'the suppressed message to fail');

  const outcomeLines = lines.filter((line) => line.orgId === orgId && typeof line.outcome === 'string');
  const outcomeOf = (id: string) => outcomeLines.filter((line) => line.messageId === id).map((line) => [line.msg, line.outcome, line.channel]);
  expect(outcomeOf(ids.delivered)).toEqual([['message delivered', 'delivered', 'email']]);
  expect(outcomeOf(ids.bounced)).toEqual([['message bounced', 'bounced', 'email']]);
  expect(outcomeOf(ids.failed)).toEqual([['message failed', 'failed', 'email']]);
  expect(outcomeOf(ids.undelivered)).toEqual([['message undelivered', 'undelivered', 'sms']]);
  expect(outcomeOf(ids.smsDelivered)).toEqual([['message delivered', 'delivered', 'sms']]);
  expect(outcomeOf(suppressed)).toEqual([['message suppressed', 'suppressed', 'email']]);
  expect(outcomeLines.find((line) => line.messageId === ids.bounced)).toMatchObject({ errorCode: 'BOUNCED', provider: 'sandbox' });
  for (const line of outcomeLines) expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

  const text = await h.deps.metrics.registry.metrics();
  const count = (channel: string, status: string) => sampleValue(text, 'tidings_messages_total', { channel, status });
  // This worker's sweeps share the test database with other files running at once and may finish their stranded
  // messages too: each count must equal this process's outcome lines of that kind (whatever the org), and hold ours.
  const linesOf = (channel: string, status: string) => lines.filter((line) => line.channel === channel && line.outcome === status).length;
  const pairs = [
    ['email', 'delivered'],
    ['email', 'bounced'],
    ['email', 'failed'],
    ['email', 'suppressed'],
    ['sms', 'delivered'],
    ['sms', 'undelivered'],
  ] as const;
  for (const [channel, status] of pairs) {
    expect([channel, status, count(channel, status)]).toEqual([channel, status, linesOf(channel, status)]);
    expect(count(channel, status)).toBeGreaterThanOrEqual(1);
  }
});
