import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createWebhook, newId } from '@tidings/core';
import {
  createTestDeps,
  freePort,
  makeOrganization,
  spawnService,
  startFakeResend,
  startOtlpReceiver,
  startWebhookReceiver,
  type FakeResend,
  type OtlpReceiver,
  type ReceivedSpan,
  type WebhookReceiver,
  waitFor,
} from '@tidings/testing';

// The three processes as operators run them (API, send-worker, webhook-worker), each exporting its spans to an
// OTLP receiver on loopback: one message, followed from the API request to the provider call and the webhook
// delivery it causes, in one trace.
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
const children: ChildProcess[] = [];
const logs: Record<string, string[]> = {};
let otlp: OtlpReceiver;
let resend: FakeResend;
let receiver: WebhookReceiver;
let apiUrl: string;

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

function start(name: string, entry: string, env: Record<string, string>) {
  const child = spawnService(
    path.resolve(__dirname, entry),
    deps.config,
    // ops ports on any free port: the defaults may be taken by another process on the machine
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      API_METRICS_PORT: '0',
      SEND_WORKER_METRICS_PORT: '0',
      WEBHOOK_WORKER_METRICS_PORT: '0',
      ...env,
    },
    ['ignore', 'pipe', 'inherit'],
  );
  logs[name] = [];
  child.stdout!.on('data', (chunk: Buffer) => logs[name]!.push(...chunk.toString().split('\n').filter(Boolean)));
  children.push(child);
}

const apiLogLines = () => logs.api!.map((l) => JSON.parse(l) as Record<string, unknown>);
const sendEmail = (url: string, key: string, to: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ channelType: 'email', to, subject: 'Traced', text: 'traced' }),
  });

beforeAll(async () => {
  [otlp, resend, receiver] = await Promise.all([startOtlpReceiver(), startFakeResend(), startWebhookReceiver()]);
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  const providers = { RESEND_API_KEY: 're_trace_test_key', RESEND_BASE_URL: resend.url, RESEND_RATE_PER_SECOND: '10000' };
  start('api', '../../api/src/server.ts', { API_PORT: String(port), ...providers });
  start('send-worker', '../src/worker.ts', { SEND_WORKER_QUEUES: 'email', ...providers });
  start('webhook-worker', '../../webhook-worker/src/worker.ts', { WEBHOOK_ALLOW_LOOPBACK: 'true' });
  await waitFor(async () => (await fetch(`${apiUrl}/healthz`).catch(() => null))?.ok, 150_000, 'the API to start');
  await waitFor(() => logs['send-worker']!.some((l) => l.includes('send-worker consuming')), 150_000, 'the send-worker to start');
  await waitFor(() => logs['webhook-worker']!.some((l) => l.includes('webhook-worker consuming')), 150_000, 'the webhook-worker to start');
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([otlp.close(), resend.close(), receiver.close()]);
  await deps.close();
});

it('one trace holds the API request, the send job, the provider call and the webhook delivery, with no secret in it', async () => {
  const org = await makeOrganization(deps, { mode: 'live' });
  await deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId: org.orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
  });
  const webhook = await createWebhook(deps, org.orgId, { url: `${receiver.url}/hook`, events: ['message.sent'] });
  const recipient = 'traced.recipient@example.com';
  const text = 'the body that must stay out of traces';
  const response = await fetch(`${apiUrl}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channelType: 'email', to: recipient, subject: 'Traced', text }),
  });
  expect(response.status).toBe(202);
  const { id: messageId } = (await response.json()) as { id: string };
  const [delivered] = await receiver.waitForRequests(1, 60_000);

  const request = await waitFor(() => otlp.spans.find((s) => s.kind === SERVER && s.name === 'POST /v1/messages'), 30_000, 'the API request span');
  const inTrace = (match: (s: ReceivedSpan) => boolean) => otlp.spans.find((s) => s.traceId === request.traceId && match(s));
  const provider = await waitFor(() => inTrace((s) => s.name === 'provider.send'), 30_000, 'the provider call in the trace');
  const delivery = await waitFor(() => inTrace((s) => s.name === 'webhook.deliver'), 30_000, 'the webhook delivery in the trace');

  expect(request).toMatchObject({ service: 'tidings-api', attributes: expect.objectContaining({ 'http.route': '/v1/messages' }) });
  // a path names the route, never what is in it (an unsubscribe token, an address); a query is left out
  // and a caller's traceparent is continued
  const callerTrace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
  const unsubscribe = await fetch(`${apiUrl}/u/not-a-real-token-but-secret-looking?email=${encodeURIComponent(recipient)}`, {
    headers: { traceparent: `00-${callerTrace.traceId}-${callerTrace.spanId}-01` },
  });
  expect(unsubscribe.status).toBeGreaterThanOrEqual(400);
  const unsubscribeSpan = await waitFor(() => otlp.spans.find((s) => s.kind === SERVER && s.name.startsWith('GET /u/')), 30_000, 'the unsubscribe request span');
  expect(unsubscribeSpan.attributes).toMatchObject({ 'url.path': '/u/:token', 'url.query': '[redacted]' });
  expect(unsubscribeSpan).toMatchObject({ traceId: callerTrace.traceId, parentSpanId: callerTrace.spanId });
  // the job crosses the queue: a producer span in the API, a consumer span in the send-worker
  // (a job's span ends after the spans inside it: wait for it to arrive)
  const enqueue = await waitFor(() => inTrace((s) => s.service === 'tidings-api' && s.kind === PRODUCER), 5000, 'the API adding the send job');
  const run = await waitFor(() => inTrace((s) => s.service === 'tidings-send-worker' && s.kind === CONSUMER), 5000, 'the send job run');
  expect(run.parentSpanId).toBe(enqueue.spanId);
  // the enqueue's span says what was added; the Redis script call under it is no span of its own
  expect(otlp.spans.filter((s) => s.parentSpanId === enqueue.spanId && s.service === 'tidings-api')).toEqual([]);
  await waitFor(() => inTrace((s) => s.service === 'tidings-webhook-worker' && s.kind === CONSUMER), 5000, 'the delivery job run');
  expect(provider).toMatchObject({
    service: 'tidings-send-worker',
    kind: CLIENT,
    attributes: {
      'tidings.provider': 'resend',
      'tidings.channel': 'email',
      'tidings.outcome': 'sent',
      'tidings.attempt': 1,
      'tidings.message_id': messageId,
      'tidings.org_id': org.orgId,
    },
  });
  expect(delivery).toMatchObject({
    service: 'tidings-webhook-worker',
    kind: CLIENT,
    attributes: expect.objectContaining({ 'tidings.webhook_id': webhook.id, 'tidings.outcome': 'succeeded', 'tidings.attempt': 1, 'http.response.status_code': 200 }),
  });
  // Postgres and Redis calls are spans of the same trace
  expect(inTrace((s) => s.attributes['db.system.name'] === 'postgresql')).toBeDefined();
  expect(inTrace((s) => s.attributes['db.system.name'] === 'redis')).toBeDefined();
  // but the rate-limit check every request makes is no span (its time is the request span's): the request was
  // counted, and no Redis call hangs from the request span itself (the enqueue's hang from the producer span)
  expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  expect(otlp.spans.filter((s) => s.parentSpanId === request.spanId && s.attributes['db.system.name'] === 'redis')).toEqual([]);
  // the customer's endpoint can join the trace, at the delivery's span
  expect(delivered!.headers.traceparent).toBe(`00-${request.traceId}-${delivery.spanId}-01`);

  // the send-worker's log line about this message carries the trace
  const sentLine = await waitFor(
    () => logs['send-worker']!.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'sent' && l.messageId === messageId),
    5000,
    'the sent log line',
  );
  expect(sentLine).toMatchObject({ traceId: request.traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  // and so does the API's line about the request, at the request's span
  const requestLine = apiLogLines().find((l) => l.msg === 'request' && l.route === '/v1/messages' && l.traceId === request.traceId);
  expect(requestLine).toMatchObject({ spanId: request.spanId, status: 202 });

  // nothing secret anywhere in what was exported: keys, the webhook secret, the body, the recipient
  const exported = otlp.bodies.join('\n');
  for (const secret of [org.key, 're_trace_test_key', webhook.secret, text, recipient, encodeURIComponent(recipient), 'Traced', 'secret-looking']) {
    expect(exported).not.toContain(secret);
  }
}, 180_000);

it("sends that share one statement and one enqueue (group commit) each continue their own request's trace", async () => {
  const org = await makeOrganization(deps, { mode: 'live' });
  await deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId: org.orgId, name: 'grouped.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@grouped.test' },
  });
  // each caller its own trace, so each message's spans can be told to belong to it
  const callers = Array.from({ length: 40 }, (_, i) => ({ traceId: (i + 1).toString(16).padStart(32, 'a'), spanId: (i + 1).toString(16).padStart(16, 'b') }));
  const responses = await Promise.all(
    callers.map((caller, i) => sendEmail(apiUrl, org.key, `grouped${i}@example.com`, { traceparent: `00-${caller.traceId}-${caller.spanId}-01` })),
  );
  const messageIds = await Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id));
  expect(responses.map((r) => r.status)).toEqual(callers.map(() => 202));
  const callerTraces = new Set(callers.map((c) => c.traceId));
  // the requests were added together: at least one addBulk carried several of them
  await waitFor(() => otlp.spans.some((s) => s.service === 'tidings-api' && s.name === 'addBulk email' && callerTraces.has(s.traceId)), 30_000, 'a grouped enqueue');
  const providerSpans = await waitFor(
    () => {
      const found = messageIds.map((id) => otlp.spans.find((s) => s.name === 'provider.send' && s.attributes['tidings.message_id'] === id));
      return found.every(Boolean) ? (found as ReceivedSpan[]) : null;
    },
    60_000,
    'every provider call',
  );
  expect(providerSpans.map((s) => s.traceId)).toEqual(callers.map((c) => c.traceId));
}, 120_000);

it("with OTEL_API_STATEMENT_SPANS=true, the API's Postgres calls are spans of their request", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  start('api-statements', '../../api/src/server.ts', { API_PORT: String(port), OTEL_API_STATEMENT_SPANS: 'true' });
  await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 150_000, 'the second API to start');
  const org = await makeOrganization(deps, { mode: 'test' });
  const sent = (await (await sendEmail(url, org.key, 'statements@example.com')).json()) as { id: string };
  const read = await fetch(`${url}/v1/messages/${sent.id}`, { headers: { authorization: `Bearer ${org.key}` } });
  expect(read.status).toBe(200);
  const request = await waitFor(
    () => otlp.spans.find((s) => s.kind === SERVER && s.name === 'GET /v1/messages/:id' && s.service === 'tidings-api'),
    30_000,
    'the read request span',
  );
  const statement = await waitFor(
    () => otlp.spans.find((s) => s.traceId === request.traceId && s.attributes['db.system.name'] === 'postgresql'),
    30_000,
    'a statement span in the request',
  );
  expect(statement.attributes).not.toHaveProperty('db.query.parameter.0');
  // the default API (no statement spans) made none for the same read
  const read2 = await fetch(`${apiUrl}/v1/messages/${sent.id}`, { headers: { authorization: `Bearer ${org.key}` } });
  expect(read2.status).toBe(200);
  const plainRequest = await waitFor(
    () => otlp.spans.find((s) => s.kind === SERVER && s.name === 'GET /v1/messages/:id' && s.traceId !== request.traceId),
    30_000,
    "the default API's read span",
  );
  expect(otlp.spans.filter((s) => s.traceId === plainRequest.traceId && s.service === 'tidings-api' && s.kind !== SERVER)).toEqual([]);
}, 180_000);
