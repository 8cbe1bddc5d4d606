// SMTP submission (apps/smtp) against message.send over HTTP in the same run: the same message, 10 connections each
// (nodemailer's pool for SMTP, autocannon for HTTP), and the SMTP app's peak RSS meanwhile. The SMTP app runs built
// (`node apps/smtp/dist/server.js` with the image's NODE_OPTIONS) when `npm run build` has made it, else from source.
// Like autocannon's request, the mail is composed once, and each send gives it a Message-ID of its own: the load
// generator shares the machine's two cores with the app, and composing MIME per mail made it the bottleneck.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTestCertificate } from '@tidings/testing';
import nodemailer from 'nodemailer';
import { freePort, load, progress, ratio, root, sampleRss, startProcess, stopProcess, type Api, type Bench } from '../harness.ts';
import { SEND_BODY } from './send.ts';

export const SMTP_CONNECTIONS = 10;
/** Mails in flight per connection: the next one is ready when the answer to the last comes. */
const IN_FLIGHT_PER_CONNECTION = 2;
const WARMUP_SECONDS = 3;
const MESSAGE_ID_SLOT = '<message-id-slot@bench.test>';

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!);

/** The V8 flags the image runs every app with (the Dockerfile's `ENV NODE_OPTIONS=`). */
function imageNodeOptions(): string {
  const flags = /^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
  return flags ? flags.replace(/^"|"$/g, '') : '';
}

/** The SMTP app on free ports: built when its bundle exists, else through tsx. */
async function startSmtp(bench: Bench): Promise<{ child: ChildProcess; port: number; isBuilt: boolean }> {
  const port = await freePort();
  // a certificate of its own, as production requires (SMTP_TLS_CERT and SMTP_TLS_KEY), not one the app makes at start
  const { cert, key } = makeTestCertificate('localhost');
  const env = {
    ...bench.env,
    REDIS_PREFIX: bench.prefix('smtp'),
    SMTP_SUBMISSION_PORT: String(port),
    SMTPS_PORT: '0',
    SMTP_METRICS_PORT: '0',
    // one key on SMTP_CONNECTIONS connections, each with a mail in flight: past the default cap of 8 per key
    SMTP_MAX_MAILS_PER_KEY: String(SMTP_CONNECTIONS),
    SMTP_TLS_CERT: cert,
    SMTP_TLS_KEY: key,
  };
  const built = path.join(root, 'apps/smtp/dist/server.js');
  const isBuilt = existsSync(built);
  const child = isBuilt
    ? spawn(process.execPath, [built], { env: { ...process.env, LOG_LEVEL: 'warn', NODE_OPTIONS: imageNodeOptions(), ...env }, stdio: ['ignore', 'inherit', 'inherit'] })
    : startProcess('smtp', 'apps/smtp/src/server.ts', env);
  // STARTTLS with the bench's self-signed certificate
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, tls: { rejectUnauthorized: false } });
  try {
    const deadline = Date.now() + 60_000;
    while (!(await transport.verify().catch(() => false))) {
      if (Date.now() > deadline) throw new Error('the SMTP app did not start within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  } finally {
    transport.close();
  }
  return { child, port, isBuilt };
}

/** Sends the bench's message over a pool of `SMTP_CONNECTIONS` for `seconds`; mails answered 250 per second and their latency. */
async function loadSmtp(port: number, apiKey: string, seconds: number) {
  const message = JSON.parse(SEND_BODY) as { to: string; subject: string; text: string };
  const envelope = { from: 'bench@example.com', to: [message.to] };
  const composed = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail({ from: envelope.from, ...message, messageId: MESSAGE_ID_SLOT });
  const raw = (composed.message as Buffer).toString();
  let sequence = 0;
  const pool = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false }, // the bench's self-signed certificate
    auth: { user: 'bench', pass: apiKey },
    pool: true,
    maxConnections: SMTP_CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
  });
  const latencies: number[] = [];
  let errors = 0;
  const run = async (forMs: number, record: boolean) => {
    const until = Date.now() + forMs;
    await Promise.all(
      Array.from({ length: SMTP_CONNECTIONS * IN_FLIGHT_PER_CONNECTION }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          // a Message-ID of its own: the same one again would be answered from the idempotency record
          const mail = raw.replace(MESSAGE_ID_SLOT, `<${process.pid}.${Date.now()}.${sequence++}@bench.test>`);
          const ok = await pool.sendMail({ envelope, raw: mail }).then(
            (info) => info.response.startsWith('250'),
            () => false,
          );
          if (!record) continue;
          if (ok) latencies.push(performance.now() - started);
          else errors += 1;
        }
      }),
    );
  };
  try {
    await run(WARMUP_SECONDS * 1000, false);
    const started = performance.now();
    await run(seconds * 1000, true);
    const elapsedSeconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { messagesPerSecond: Math.round(latencies.length / elapsedSeconds), p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), errors };
  } finally {
    pool.close();
  }
}

/**
 * message.send over HTTP, then the same message through SMTP submission, 10 connections each, on the running API and
 * a started SMTP app (test key: the sandbox; rate limit raised by the bench's environment).
 */
export async function measureSmtpSubmission(bench: Bench, api: Api, apiKey: string) {
  progress(`api: POST /v1/messages, ${SMTP_CONNECTIONS} connections (the SMTP phase's reference), ${bench.seconds} s`);
  const http = await load({
    url: `${api.url}/v1/messages`,
    headers: { authorization: `Bearer ${apiKey}` },
    body: SEND_BODY,
    connections: SMTP_CONNECTIONS,
    seconds: bench.seconds,
  });
  const smtp = await startSmtp(bench);
  try {
    progress(`smtp: pooled nodemailer, ${SMTP_CONNECTIONS} connections, ${bench.seconds} s (${smtp.isBuilt ? 'built' : 'from source'})`);
    const rss = sampleRss(smtp.child.pid!);
    const result = await loadSmtp(smtp.port, apiKey, bench.seconds);
    return {
      ...result,
      httpRequestsPerSecond: http.requestsPerSecond,
      httpErrors: http.errors,
      httpStatusCodes: http.statusCodes,
      ratio: ratio(result.messagesPerSecond, http.requestsPerSecond),
      connections: SMTP_CONNECTIONS,
      peakRssMiB: rss.stop(),
      isBuilt: smtp.isBuilt,
    };
  } finally {
    await stopProcess(smtp.child);
  }
}
