import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { createWebhook, newId } from '@tidings/core';
import {
  createTestDeps,
  makeOrganization,
  startFakeResend,
  startFakeSes,
  startFakeTelnyx,
  startFakeTwilio,
  startSmtpServer,
  startTcpProxy,
  startRedisServer,
  startWebhookReceiver,
  waitFor,
  type FakeResend,
  type TcpProxy,
  type WebhookReceiver,
} from '@tidings/testing';

const root = path.resolve(__dirname, '../..');

/**
 * FAULTS_BUILT=1 runs the built apps (`node apps/<app>/dist/<entry>.js`, as production does; `npm run build` first),
 * otherwise their sources through tsx as a loader (not the tsx CLI: one process, so SIGKILL reaches the app itself).
 */
const runBuilt = process.env.FAULTS_BUILT === '1';
function nodeArgs(entry: string): string[] {
  return runBuilt ? [path.join(root, entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(root, entry)];
}

/** One running process of ours: its last log lines are kept for the error message when a run goes wrong. */
export type AppProcess = { name: string; proc: ChildProcess; tail: string[] };

export type RigOptions = {
  /** Put a TCP proxy between the processes and Postgres (`rig.dbProxy`), to cut their connections. */
  proxyDatabase?: boolean;
  /** Same for Redis (`rig.redisProxy`). */
  proxyRedis?: boolean;
  /** A Redis of the run's own, without persistence, that `rig.restartRedisEmpty()` kills and starts again empty. */
  privateRedis?: boolean;
  sendWorkers?: number;
  /** API processes (default 1); the load goes round-robin over them. */
  apis?: number;
  /** Webhook-workers (default 1). */
  webhookWorkers?: number;
  /** REDIS_URL of every process instead of the test Redis, e.g. a Redis Cluster's (not with `proxyRedis`/`privateRedis`). */
  redisUrl?: string;
  /** A fan-out worker of its own (a send-worker consuming only `broadcasts`, `rig.fanOut`); the send-workers then consume email and sms only. */
  fanOutWorker?: boolean;
  /**
   * SMTP submission processes too: true or 1 for one (`rig.submission`, its STARTTLS port `rig.submissionPort`), a
   * number for that many replicas (all of them in `rig.submissions` and `rig.submissionPorts`).
   */
  smtpSubmission?: boolean | number;
  /** Environment of the SMTP apps only, on top of `env`. */
  smtpEnv?: Record<string, string>;
  /** Environment of every process on top of the rig's fast timings. */
  env?: Record<string, string>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true, or fails after `timeoutMs` with `describe()`'s text. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string | Promise<string>): Promise<void> {
  const met = await waitFor(check, timeoutMs).catch(() => false);
  if (!met) throw new Error(`timed out after ${timeoutMs} ms: ${await describe()}`);
}

/**
 * The whole product as separate processes, the way it runs in production: the API (apps/api/src/server.ts, or its
 * build with FAULTS_BUILT=1),
 * send-workers and a webhook-worker, on the run's test database and a Redis prefix of their own, with the real
 * Resend SDK talking to the fake Resend and webhooks going to a real HTTP receiver. Optionally Postgres and/or Redis
 * sit behind TCP proxies the test can cut. Timings are short (locks, stalled checks, backoff, webhook retries) so
 * recovery happens within seconds. One live organization with a verified domain and a webhook on every message
 * event. The test process keeps its own direct connections for setup and assertions.
 * @example const rig = await startRig({ proxyRedis: true }); ... await rig.close();
 */
export async function startRig(options: RigOptions = {}) {
  const redisPort = options.privateRedis ? await freePort() : null;
  let redisServer = redisPort ? await startRedisServer(redisPort) : null;
  const ownRedisUrl = redisPort ? `redis://127.0.0.1:${redisPort}` : options.redisUrl;
  const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true', ...(ownRedisUrl ? { REDIS_URL: ownRedisUrl } : {}) });
  const resend: FakeResend = await startFakeResend();
  const [smtp, telnyx, twilio, ses] = await Promise.all([startSmtpServer(), startFakeTelnyx(), startFakeTwilio(), startFakeSes()]);
  const receiverPort = await freePort();
  let receiver: WebhookReceiver | null = await startWebhookReceiver({ port: receiverPort });
  const receivedWebhookIds: string[] = [];
  const dbUrl = new URL(deps.config.databaseUrl);
  const dbProxy: TcpProxy | null = options.proxyDatabase ? await startTcpProxy(Number(dbUrl.port || 5432), dbUrl.hostname) : null;
  const redisUrl = options.proxyRedis ? new URL(deps.config.redisUrl) : null;
  const redisProxy: TcpProxy | null = redisUrl ? await startTcpProxy(Number(redisUrl.port || 6379), redisUrl.hostname) : null;
  const through = (url: URL, proxy: TcpProxy | null) => {
    if (!proxy) return url.toString();
    const proxied = new URL(url);
    proxied.hostname = proxy.host;
    proxied.port = String(proxy.port);
    return proxied.toString();
  };
  const apiPorts = await Promise.all(Array.from({ length: options.apis ?? 1 }, () => freePort()));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: through(dbUrl, dbProxy),
    DATABASE_POOL_SIZE: '5',
    REDIS_URL: redisUrl ? through(redisUrl, redisProxy) : deps.config.redisUrl,
    REDIS_PREFIX: deps.config.redisPrefix,
    // each API process its own ops port (several run at once in a scenario)
    API_METRICS_PORT: '0',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // the load texts one prefix (+1 415) far past the fraud guard's hourly limit
    SMS_PREFIX_LIMIT_PER_HOUR: '1000000',
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    // the fake Resend here has no limit: the pace suite (tests/pace) is where limits are met
    RESEND_RATE_PER_SECOND: '10000',
    // the other providers are ready too; EMAIL_PROVIDERS / SMS_PROVIDERS in a scenario's env choose (Resend, Telnyx by default)
    SMTP_URL: smtp.url,
    TELNYX_API_KEY: 'KEY_fault_test',
    TELNYX_BASE_URL: `${telnyx.url}/v2`,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_BASE_URL: twilio.url,
    SES_REGION: 'us-east-1',
    SES_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE',
    SES_SECRET_ACCESS_KEY: 'fake-secret-access-key',
    SES_ENDPOINT: ses.url,
    SEND_WORKER_CONCURRENCY: '10',
    SEND_MAX_ATTEMPTS: '8',
    SEND_BACKOFF_BASE_MS: '100',
    SEND_BACKOFF_MAX_MS: '1000',
    PROVIDER_TIMEOUT_MS: '2000',
    SEND_WORKER_LOCK_DURATION_MS: '3000',
    SEND_WORKER_STALLED_INTERVAL_MS: '1000',
    OUTBOX_RELAY_INTERVAL_MS: '500',
    OUTBOX_RELAY_GRACE_MS: '1000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    // ~40 s of retries: longer than any outage the scenarios make
    WEBHOOK_RETRY_SCHEDULE_MS: '250,500,1000,2000,4000,8000,8000,8000,8000',
    WEBHOOK_WORKER_LOCK_MS: '3000',
    WEBHOOK_WORKER_STALLED_INTERVAL_MS: '1000',
    ...options.env,
  };
  const processes = new Set<AppProcess>();

  function start(name: string, entry: string, ownEnv: Record<string, string> = {}): AppProcess {
    const proc = spawn(process.execPath, nodeArgs(entry), { cwd: root, env: { ...process.env, ...env, ...ownEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    const app: AppProcess = { name, proc, tail: [] };
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) app.tail.push(`${name}[${proc.pid}]: ${line.slice(0, 300)}`);
      app.tail.splice(0, app.tail.length - 8);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    processes.add(app);
    return app;
  }

  async function stop(app: AppProcess, signal: NodeJS.Signals): Promise<void> {
    if (app.proc.exitCode === null && app.proc.signalCode === null) {
      const exited = new Promise((resolve) => app.proc.once('exit', resolve));
      app.proc.kill(signal);
      await exited;
    }
    processes.delete(app);
  }

  const apiUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  const apis = apiPorts.map((port, i) => start(`api-${i}`, 'apps/api/src/server.ts', { API_PORT: String(port) }));
  const apiUrl = apiUrls[0]!;
  const api = apis[0]!;
  const sendWorkerEnv: Record<string, string> = options.fanOutWorker ? { SEND_WORKER_QUEUES: 'email,sms' } : {};
  const fanOutEnv = { SEND_WORKER_QUEUES: 'broadcasts' };
  const sendWorkers = Array.from({ length: options.sendWorkers ?? 2 }, (_, i) => start(`send-worker-${i}`, 'apps/send-worker/src/worker.ts', sendWorkerEnv));
  let fanOut = options.fanOutWorker ? start('fan-out', 'apps/send-worker/src/worker.ts', fanOutEnv) : null;
  for (let i = 0; i < (options.webhookWorkers ?? 1); i++) start(`webhook-worker-${i}`, 'apps/webhook-worker/src/worker.ts');
  const submissionCount = options.smtpSubmission === true ? 1 : options.smtpSubmission || 0;
  const submissionPorts = await Promise.all(Array.from({ length: submissionCount }, () => freePort()));
  const submissions = submissionPorts.map((port, i) =>
    start(i === 0 ? 'smtp' : `smtp-${i}`, 'apps/smtp/src/server.ts', { SMTP_SUBMISSION_PORT: String(port), SMTPS_PORT: '0', SMTP_METRICS_PORT: '0', ...options.smtpEnv }),
  );
  for (const [i, port] of submissionPorts.entries()) {
    await waitUntil(
      () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.end();
            resolve(true);
          }).on('error', () => resolve(false));
        }),
      120_000,
      () => `the SMTP app did not start (exit ${submissions[i]!.proc.exitCode} ${submissions[i]!.proc.signalCode}):\n${submissions[i]!.tail.join('\n')}`,
    );
  }
  const submission = submissions[0] ?? null;
  const submissionPort = submissionPorts[0] ?? null;
  for (const [i, url] of apiUrls.entries()) {
    await waitUntil(
      async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true,
      // several processes compile and start at once: on a busy machine that takes more than a minute
      180_000,
      () => `the API did not start:\n${apis[i]!.tail.join('\n')}`,
    );
  }

  const org = await makeOrganization(deps, { mode: 'live' });
  await deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId: org.orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
  });
  // the fake Telnyx has no per-number limit here (the pace suite has): the number is not paced to a long code's 1 a second
  await deps.db.phoneNumber.create({
    data: {
      id: newId('pn'),
      orgId: org.orgId,
      number: `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
      isDefault: true,
      type: 'local',
      provider: 'telnyx',
      messagesPerSecond: 1000,
    },
  });
  await createWebhook(deps, org.orgId, { url: `${receiver.url}/hook`, events: ['message.queued', 'message.sent', 'message.failed'] });

  return {
    deps,
    env,
    resend,
    smtp,
    telnyx,
    twilio,
    ses,
    dbProxy,
    redisProxy,
    apiUrl,
    apiUrls,
    org,
    sendWorkers,
    /** Kills the private Redis (SIGKILL) and starts it again on its port with nothing in it: every job is gone. */
    async restartRedisEmpty() {
      const exited = new Promise((resolve) => redisServer!.once('exit', resolve));
      redisServer!.kill('SIGKILL');
      await exited;
      redisServer = await startRedisServer(redisPort!);
    },
    api,
    apis,
    submission,
    submissionPort,
    submissions,
    submissionPorts,
    /** Sends `signal` to one of the processes and resolves with its exit code once it has exited. */
    async signal(app: AppProcess, signal: NodeJS.Signals): Promise<number | null> {
      const exited = new Promise<number | null>((resolve) => app.proc.once('exit', (code) => resolve(code)));
      app.proc.kill(signal);
      const code = await exited;
      processes.delete(app);
      return code;
    },
    /** Starts one more send-worker. */
    addSendWorker(): AppProcess {
      const worker = start(`send-worker-${sendWorkers.length}`, 'apps/send-worker/src/worker.ts');
      sendWorkers.push(worker);
      return worker;
    },
    /** Kills a send-worker (SIGKILL: no goodbye) and starts a new one in its place. */
    async killAndRestartSendWorker(index: number) {
      const old = sendWorkers[index]!;
      await stop(old, 'SIGKILL');
      sendWorkers[index] = start(old.name, 'apps/send-worker/src/worker.ts', sendWorkerEnv);
    },
    /** Kills the fan-out worker (SIGKILL) and starts a new one in its place. */
    async killAndRestartFanOut() {
      await stop(fanOut!, 'SIGKILL');
      fanOut = start('fan-out', 'apps/send-worker/src/worker.ts', fanOutEnv);
    },
    /** The webhook receiver goes away (connections refused) until `startReceiver()`. */
    async stopReceiver() {
      receivedWebhookIds.push(...receiver!.requests.map((r) => r.headers['webhook-id']!));
      await receiver!.close();
      receiver = null;
    },
    async startReceiver() {
      receiver = await startWebhookReceiver({ port: receiverPort });
    },
    /** `webhook-id` of every webhook request received (one per request: a redelivery appears again). */
    webhookIdsReceived: () => [...receivedWebhookIds, ...(receiver?.requests.map((r) => r.headers['webhook-id']!) ?? [])],
    /** The requests the running receiver got (with their arrival times), since it last started. */
    webhookRequests: () => receiver?.requests ?? [],
    /** The last log lines of every process, for an error message. */
    logs: () => [...processes].flatMap((p) => p.tail).join('\n'),
    async close() {
      await Promise.all([...processes].map((p) => stop(p, 'SIGKILL')));
      await Promise.all([resend.close(), smtp.close(), telnyx.close(), twilio.close(), ses.close(), receiver?.close(), dbProxy?.close(), redisProxy?.close()]);
      await deps.close();
      redisServer?.kill('SIGKILL');
    },
  };
}

export type Rig = Awaited<ReturnType<typeof startRig>>;

/** A client's view of a load run: which request got which message, and how often it had to try again. */
export type Load = { accepted: Map<number, string>; retries: number; seconds: number };

/**
 * Sends `count` emails (or, by `channelOf`, some SMS) through the API process, `concurrency` requests at a time, as a careful client does: every
 * request carries an Idempotency-Key and is retried with it after a network error, a timeout, a 5xx or a 409 (the
 * first try still running), until a 202. So every message counts once, whatever failed on the way.
 * `onProgress` hears the number accepted so far (the fault scenarios start their faults from it).
 */
export async function sendLoad(
  rig: Rig,
  count: number,
  options: { concurrency?: number; onProgress?: (accepted: number) => void; channelOf?: (i: number) => 'email' | 'sms' } = {},
): Promise<Load> {
  const run = randomUUID().slice(0, 8);
  const accepted = new Map<number, string>();
  let retries = 0;
  let next = 0;
  const started = performance.now();
  const deadline = Date.now() + 120_000 + count * 100;
  async function sendOne(i: number) {
    const body = JSON.stringify(
      (options.channelOf?.(i) ?? 'email') === 'email'
        ? { channelType: 'email', to: `r${i}@example.com`, subject: `fault ${run} #${i}`, text: `message ${i}` }
        : { channelType: 'sms', to: `+1415555${String(i).padStart(4, '0')}`, body: `fault ${run} #${i}` },
    );
    for (;;) {
      if (Date.now() > deadline) throw new Error(`message ${i} was still not accepted at the deadline\n${rig.logs()}`);
      const response = await fetch(`${rig.apiUrls[i % rig.apiUrls.length]}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rig.org.key}`, 'content-type': 'application/json', 'idempotency-key': `${run}-${i}` },
        body,
        signal: AbortSignal.timeout(15_000),
      }).catch(() => null); // refused, reset or timed out: the same key again
      if (response?.status === 202) {
        accepted.set(i, ((await response.json()) as { id: string }).id);
        options.onProgress?.(accepted.size);
        return;
      }
      const text = response ? await response.text() : '';
      if (response && response.status < 500 && response.status !== 409) throw new Error(`message ${i}: ${response.status} ${text}`);
      retries += 1;
      await sleep(200);
    }
  }
  await Promise.all(
    Array.from({ length: options.concurrency ?? 16 }, async () => {
      while (next < count) await sendOne(next++);
    }),
  );
  return { accepted, retries, seconds: (performance.now() - started) / 1000 };
}

/** A call to the API with `key`; throws on anything but a 2xx. */
export async function call(rig: Rig, key: string, method: string, path: string, body?: object): Promise<Record<string, any>> {
  const response = await fetch(`${rig.apiUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as Record<string, any>;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}
