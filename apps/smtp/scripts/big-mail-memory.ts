// The SMTP app's memory under big mails from one test key, measured on the built app as it runs in production:
// `npm run build -w @tidings/smtp && npx tsx apps/smtp/scripts/big-mail-memory.ts [mails] [MiB]` (16 x 47 by
// default). Prints the app's resident memory before, at its peak and after, and what each mail was answered.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestDeps, makeOrganization, waitFor } from '@tidings/testing';
import nodemailer from 'nodemailer';

const mails = Number(process.argv[2] ?? 16);
const mebibytes = Number(process.argv[3] ?? 47);
const residentMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main() {
  const deps = createTestDeps();
  const { key } = await makeOrganization(deps, { mode: 'test' });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const app = spawn(process.execPath, [path.resolve(__dirname, '../dist/server.js')], {
    env: {
      ...process.env,
      DATABASE_URL: deps.config.databaseUrl,
      REDIS_URL: deps.config.redisUrl,
      REDIS_PREFIX: deps.config.redisPrefix,
      LOG_LEVEL: 'info',
      SMTP_SUBMISSION_PORT: String(port),
      SMTPS_PORT: String(port + 1),
      SMTP_METRICS_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '1000',
      NODE_ENV: 'development',
      ...JSON.parse(process.env.APP_ENV ?? '{}'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => app.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('smtp submission on') && resolve()));
  const pid = app.pid!;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const startMiB = residentMiB(pid);
  let peakMiB = startMiB;
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, residentMiB(pid))), 50);

  // random bytes, sent as base64 in lines of 76 characters: the mail's size on the wire is about `mebibytes`
  const attachment = randomBytes(Math.floor((((mebibytes * 1024 * 1024 * 3) / 4) * 76) / 78) - 64 * 1024);
  const transport = () =>
    nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, auth: { user: 'load', pass: key }, tls: { rejectUnauthorized: false } });
  const answers = await Promise.all(
    Array.from({ length: mails }, (_, i) =>
      transport()
        .sendMail({ from: 'big@acme.test', to: 'ada@example.com', subject: `big #${i}`, text: 'x', attachments: [{ filename: 'big.bin', content: attachment }] })
        .then(
          (info) => info.response,
          (error: { response?: string; message: string }) => error.response ?? error.message,
        ),
    ),
  );
  const loadedMiB = residentMiB(pid);
  const settled = await waitFor(() => residentMiB(pid) < startMiB + 50, 60_000).then(
    () => true,
    () => false,
  );
  clearInterval(sampler);
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(answer.slice(0, 60), (counts.get(answer.slice(0, 60)) ?? 0) + 1);
  console.log(
    JSON.stringify(
      { mails, mebibytes, startMiB, peakMiB, afterLoadMiB: loadedMiB, endMiB: residentMiB(pid), isBackWithin50MiB: settled, answers: Object.fromEntries(counts) },
      null,
      2,
    ),
  );
  app.kill('SIGTERM');
  await deps.close();
}

void main();
