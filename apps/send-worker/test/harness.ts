import type { ChildProcess, StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createApp } from '@tidings/api';
import { newId } from '@tidings/core';
import {
  apiClient,
  createTestDeps,
  makeOrganization,
  makeTelnyxKeyPair,
  spawnService,
  startFakeResend,
  startFakeSes,
  startFakeSns,
  startFakeTelnyx,
  startFakeTwilio,
  startSmtpServer,
  type FakeResend,
  type FakeTelnyx,
  type TestDeps,
  waitFor,
} from '@tidings/testing';
import { startSendWorker, type SendWorker } from '../src/send-worker.ts';

export const RESEND_WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The whole pipeline in one test file: the HTTP app, a real send-worker, real Postgres and Redis, and the real
 * Resend, Telnyx, SES and Twilio SDKs and nodemailer talking to loopback fakes and a real SMTP server. Resend and
 * Telnyx are the providers unless `env` lists others (EMAIL_PROVIDERS, SMS_PROVIDERS). Fast retry, stall check and
 * sandbox timings; a job's lock lasts 10 s, so that a worker starved of CPU (two suites at once on a loaded machine)
 * does not lose it to its own stall check and send twice (worker-crash.test.ts shortens it for the crash it tests).
 * @example const h = await startPipeline(); ... afterAll(() => h.close());
 */
export async function startPipeline(env: Record<string, string> = {}) {
  const resend: FakeResend = await startFakeResend();
  const telnyx: FakeTelnyx = await startFakeTelnyx();
  const telnyxKeys = makeTelnyxKeyPair();
  const [smtp, ses, sns, twilio] = await Promise.all([startSmtpServer(), startFakeSes(), startFakeSns(), startFakeTwilio()]);
  const deps: TestDeps = createTestDeps({
    SMTP_URL: smtp.url,
    SES_REGION: 'us-east-1',
    SES_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE',
    SES_SECRET_ACCESS_KEY: 'fake-secret-access-key',
    SES_ENDPOINT: ses.url,
    SNS_URL_PATTERN: sns.urlPattern,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_BASE_URL: twilio.url,
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    // the fake Resend has no limit unless a test gives it one (then it sets its own rate)
    RESEND_RATE_PER_SECOND: '10000',
    RESEND_WEBHOOK_SECRET,
    TELNYX_API_KEY: 'KEY_test',
    TELNYX_BASE_URL: `${telnyx.url}/v2`,
    TELNYX_PUBLIC_KEY: telnyxKeys.publicKeyBase64,
    // the tests poll the API every 20 ms while they wait; at the default 100 a minute, a wait of a few seconds used
    // the key's minute and then saw only 429s until it passed (a broadcast test waited 60 s for a `sent` it had)
    RATE_LIMIT_PER_MINUTE: '100000',
    SEND_MAX_ATTEMPTS: '3',
    SEND_BACKOFF_BASE_MS: '50',
    SEND_BACKOFF_MAX_MS: '200',
    PROVIDER_TIMEOUT_MS: '2000',
    SANDBOX_OUTCOME_DELAY_MS: '50',
    OUTBOX_RELAY_INTERVAL_MS: '200',
    OUTBOX_RELAY_GRACE_MS: '0',
    SEND_WORKER_LOCK_DURATION_MS: '10000',
    SEND_WORKER_STALLED_INTERVAL_MS: '500',
    ...env,
  });
  const app = createApp(deps);
  let worker: SendWorker | null = null;
  return {
    deps,
    app,
    resend,
    telnyx,
    telnyxKeys,
    smtp,
    ses,
    sns,
    twilio,
    anonymous: apiClient(app),
    async startWorker() {
      worker = await startSendWorker(deps);
      return worker;
    },
    /** A send-worker process of the email queue (`src/worker.ts`) against the fake Resend; the caller kills it. */
    startWorkerProcess(env: Record<string, string> = {}, stdio: StdioOptions = 'ignore'): ChildProcess {
      const { config } = deps;
      const providerEnv = {
        RESEND_API_KEY: config.resend.apiKey!,
        RESEND_BASE_URL: config.resend.baseUrl!,
        RESEND_RATE_PER_SECOND: String(config.pace.resendPerSecond),
        SEND_WORKER_QUEUES: 'email',
      };
      return spawnService(path.resolve(__dirname, '../src/worker.ts'), config, { ...providerEnv, ...env }, stdio);
    },
    /** A live organization with a verified domain (default sender hello@acme.test) and a default number. */
    async liveOrg() {
      const org = await makeOrganization(deps, { mode: 'live' });
      await deps.db.emailDomain.create({
        data: { id: newId('dom'), orgId: org.orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
      });
      const number = `+1555${String(Date.now() % 10_000_000).padStart(7, '0')}`; // unique per org: numbers are unique
      // the fake Telnyx has no per-number limit here (the pace suite has): the number is not paced to a long code's 1 a second
      await deps.db.phoneNumber.create({ data: { id: newId('pn'), orgId: org.orgId, number, isDefault: true, type: 'local', provider: 'telnyx', messagesPerSecond: 1000 } });
      return { ...org, api: apiClient(app, org.key) };
    },
    async testOrg() {
      const org = await makeOrganization(deps, { mode: 'test' });
      return { ...org, api: apiClient(app, org.key) };
    },
    async close() {
      await worker?.close();
      await Promise.all([resend.close(), telnyx.close(), smtp.close(), ses.close(), sns.close(), twilio.close()]);
      await deps.close();
    },
  };
}

export { waitFor } from '@tidings/testing';

/**
 * The message `id` as `api` reads it, once its status is one of `statuses` (a test of the pipeline waits for its
 * worker this way).
 * @example const sent = await messageOnceIn(org.api, id, ['sent', 'delivered']);
 */
export function messageOnceIn(api: ReturnType<typeof apiClient>, id: string, statuses: string[], timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const m = (await api.get(`/v1/messages/${id}`)).body;
      return statuses.includes(m.status) ? m : null;
    },
    timeoutMs,
    `message ${id} to be ${statuses.join('|')}`,
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
