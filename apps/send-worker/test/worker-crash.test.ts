import type { ChildProcess } from 'node:child_process';
import { startPipeline, waitFor } from './harness.ts';

// A real send-worker process, SIGTERMed or SIGKILLed while the provider holds its request: the provider has accepted the
// email, the worker never hears back and never records it. The job must run again elsewhere, and the provider
// must end up with exactly one email (the retry carries the same Idempotency-Key).
// Each test starts a worker process (tsx compiling the app) and waits out its lock: tens of seconds on a loaded
// machine running two suites at once, past jest's default 30 s; every wait inside has its own deadline.
jest.setTimeout(120_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
let child: ChildProcess | null = null;
beforeAll(async () => {
  h = await startPipeline();
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await h.close();
});

const startWorkerProcess = (env: Record<string, string> = {}) =>
  h.startWorkerProcess({ SEND_WORKER_LOCK_DURATION_MS: '1000', SEND_WORKER_STALLED_INTERVAL_MS: '500', PROVIDER_TIMEOUT_MS: '60000', ...env });

describe('a send-worker stopped in the middle of a job', () => {
  it('on SIGTERM finishes the job in flight before it exits', async () => {
    const { api } = await h.liveOrg();
    h.resend.state.respondAfterMs = 1500;
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'graceful@example.com', subject: 'Hi', text: 'x' })).body;
    const proc = startWorkerProcess({ SEND_WORKER_LOCK_DURATION_MS: '30000' });
    child = proc;
    await waitFor(async () => h.resend.state.emails.some((e) => e.to.includes('graceful@example.com')), 30_000, 'the worker process to reach the provider');
    const exitCode = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exitCode).toBe(0);
    h.resend.state.respondAfterMs = 0;
    const after = (await api.get(`/v1/messages/${sent.id}`)).body;
    expect(after.status).toBe('sent');
    expect(after.providerMessageId).toBe(h.resend.state.emails.find((e) => e.to.includes('graceful@example.com'))!.id);
  });

  it('when SIGKILLed loses nothing and sends nothing twice', async () => {
    const { api } = await h.liveOrg();
    h.resend.reset();
    h.resend.state.emails.length = 0;
    h.resend.state.hangAfterAccept = 1;
    const sent = (await api.post('/v1/messages', { channelType: 'email', to: 'once@example.com', subject: 'Once', text: 'only once' })).body;

    child = startWorkerProcess();
    await waitFor(async () => h.resend.state.emails.length === 1, 30_000, 'the worker process to reach the provider');
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const mid = (await api.get(`/v1/messages/${sent.id}`)).body;
    expect(mid.status).toBe('sending');
    expect(mid.providerMessageId).toBeNull();

    // another worker takes the stalled job once its lock runs out, and repeats the call with the same key
    await h.startWorker();
    const done = await waitFor(
      async () => {
        const m = (await api.get(`/v1/messages/${sent.id}`)).body;
        return m.status === 'sent' ? m : null;
      },
      20_000,
      'the message to be sent',
    );
    expect(h.resend.requests.filter((r) => r.path === '/emails')).toHaveLength(2);
    expect(new Set(h.resend.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([sent.id]));
    expect(h.resend.state.emails).toHaveLength(1);
    expect(done.providerMessageId).toBe(h.resend.state.emails[0]!.id);
    // two claims at least: the killed one and the retry's (a loaded machine may stall the retry's job once more, a
    // third claim that finds the message sent and calls nobody: the provider's two calls above say so)
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['queued', 'sending', 'sent']);
  });
});
