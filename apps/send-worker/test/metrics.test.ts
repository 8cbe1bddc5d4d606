import type { ChildProcess } from 'node:child_process';
import { freePort, sampleValue } from '@tidings/testing';
import { startPipeline, waitFor } from './harness.ts';

// The send-worker process as operators run it, scraped on its metrics port after real sends through the Resend SDK
// against the fake: one retried, one refused for good, one scheduled.
let h: Awaited<ReturnType<typeof startPipeline>>;
let child: ChildProcess | null = null;
let port: number;
beforeAll(async () => {
  h = await startPipeline();
  port = await freePort();
  child = h.startWorkerProcess({ SEND_WORKER_METRICS_PORT: String(port), SEND_BACKOFF_BASE_MS: '50', SEND_BACKOFF_MAX_MS: '200' }, ['ignore', 'ignore', 'inherit']);
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await h.close();
});

const get = (pathname: string) => fetch(`http://127.0.0.1:${port}${pathname}`);
const metrics = async () => (await get('/metrics')).text();

describe('the send-worker process', () => {
  it('answers /healthz and /readyz on its metrics port, and 404 elsewhere', async () => {
    const ready = await waitFor(
      () =>
        get('/readyz').then(
          (r) => (r.ok ? r : null),
          () => null,
        ),
      30_000,
      'the worker to listen',
    );
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await get('/v1/messages')).status).toBe(404);
  });

  it('counts provider calls by outcome and measures job latency and duration on /metrics', async () => {
    const { api } = await h.liveOrg();
    // read from the database: polling the API would run into its rate limit
    const messageStatus = (id: string, status: string) =>
      waitFor(async () => (await h.deps.db.message.findUniqueOrThrow({ where: { id } })).status === status, 20_000, `message ${id} to be ${status}`);

    h.resend.failNext(1, { kind: 'status', status: 500 }, '/emails');
    const retried = (await api.post('/v1/messages', { channelType: 'email', to: 'retried@example.com', subject: 'Hi', text: 'x' })).body;
    await messageStatus(retried.id, 'sent');
    h.resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field' } }, '/emails');
    const refused = (await api.post('/v1/messages', { channelType: 'email', to: 'refused@example.com', subject: 'Hi', text: 'x' })).body;
    await messageStatus(refused.id, 'failed');
    // due in 6 s: its latency counts from then, not from when it was added
    const scheduledAt = new Date(Date.now() + 6000).toISOString();
    const scheduled = (await api.post('/v1/messages', { channelType: 'email', to: 'later@example.com', subject: 'Hi', text: 'x', scheduledAt })).body;
    await messageStatus(scheduled.id, 'sent');

    const text = await metrics();
    const calls = (outcome: string) => sampleValue(text, 'tidings_provider_calls_total', { provider: 'resend', outcome });
    expect([calls('sent'), calls('retryable_error'), calls('permanent_error')]).toEqual([2, 1, 1]);
    // latency on first runs only: three jobs, the retried one's second run not counted again; all well under 5 s
    expect(sampleValue(text, 'tidings_job_latency_seconds_count', { queue: 'email' })).toBe(3);
    expect(sampleValue(text, 'tidings_job_latency_seconds_bucket', { queue: 'email', le: '5' })).toBe(3);
    const runs = (outcome: string) => sampleValue(text, 'tidings_job_duration_seconds_count', { queue: 'email', outcome });
    expect([runs('completed'), runs('delayed'), runs('failed')]).toEqual([2, 1, 1]);
    // the maintenance queue's outbox relay (a job scheduler: each run a delayed job) is measured from when it is due
    const relayRuns = sampleValue(text, 'tidings_job_latency_seconds_count', { queue: 'maintenance' });
    expect(relayRuns).toBeGreaterThan(0);
    expect(sampleValue(text, 'tidings_job_latency_seconds_bucket', { queue: 'maintenance', le: '5' })).toBe(relayRuns);
    expect(sampleValue(text, 'tidings_job_duration_seconds_count', { queue: 'maintenance', outcome: 'completed' })).toBeGreaterThan(0);
    // the Resend account's pace, shared by every worker: its rate, the calls it took lately, none deferred
    const account = { provider: 'resend', account: 'resend' };
    expect(sampleValue(text, 'tidings_provider_rate_per_second', account)).toBe(10000);
    expect(sampleValue(text, 'tidings_provider_use_per_second', account)).toBeGreaterThan(0);
    expect(sampleValue(text, 'tidings_provider_deferrals_per_second', account)).toBe(0);
    expect(sampleValue(text, 'tidings_queue_jobs', { queue: 'email', state: 'waiting' })).toBe(0);
    expect(sampleValue(text, 'tidings_outbox_backlog')).toEqual(expect.any(Number));
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  }, 60_000);

  it('on SIGTERM closes the metrics port and exits 0', async () => {
    const exitCode = new Promise((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    expect(await exitCode).toBe(0);
    await expect(get('/healthz')).rejects.toThrow();
  });
});
