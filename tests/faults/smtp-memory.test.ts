import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeOrganization } from '@tidings/testing';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { startRig, waitUntil, type Rig } from './rig.ts';

// The SMTP app's memory under a big-mail flood (the attack run: 16 mails of 47 MiB at once from one test key took it
// from 481 to 2,722 MiB, and it still held 951 MiB 25 minutes later). Its peak stays under PEAK_MIB (built, with the
// image's V8 flags) and it gives the memory back, to within RETURN_MIB of where it started, within RETURN_MS.
const MAILS = 16;
const MAIL_MIB = 47;
const PEAK_MIB = 400;
const RETURN_MIB = 50;
const RETURN_MS = 60_000;
const MiB = 1024 * 1024;
const root = path.resolve(__dirname, '../..');

/** The V8 flags the image runs every app with (the Dockerfile's `ENV NODE_OPTIONS=`), so this measures what runs. */
const nodeOptions = /^ENV NODE_OPTIONS="?([^"\n]*)"?$/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))![1]!;
/** The smtp service's allocator setting (docker-compose.yml, docs/smtp.md), likewise. */
const mmapThreshold = /^\s+MALLOC_MMAP_THRESHOLD_: "(\d+)"$/m.exec(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'))![1]!;

/** VmRSS and VmHWM (the kernel's high-water mark of the RSS) of a live process, MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 1024);
  return { rss: mib('VmRSS'), peak: mib('VmHWM') };
}

let rig: Rig;
let abuser: { orgId: string; key: string };
beforeAll(async () => {
  rig = await startRig({ sendWorkers: 1, smtpSubmission: true, env: { NODE_OPTIONS: nodeOptions }, smtpEnv: { MALLOC_MMAP_THRESHOLD_: mmapThreshold } });
  abuser = await makeOrganization(rig.deps, { mode: 'test' });
}, 180_000);
afterAll(() => rig?.close());

const send = (mail: SendMailOptions) => {
  const client = nodemailer.createTransport({
    host: '127.0.0.1',
    port: rig.submissionPort!,
    secure: false,
    auth: { user: 'memory', pass: abuser.key },
    tls: { rejectUnauthorized: false },
  });
  return client
    .sendMail(mail)
    .then(
      (info) => info.response as string,
      (error: { response?: string; message: string }) => error.response ?? error.message,
    )
    .finally(() => client.close());
};

it(`the SMTP app stays under ${PEAK_MIB} MiB while one key sends ${MAILS} mails of ${MAIL_MIB} MiB at once, and gives the memory back`, async () => {
  const pid = rig.submission!.proc.pid!;
  // a first small mail loads the code of a whole submission: not part of the flood's cost
  expect(await send({ from: 'a@abuser.test', to: 'warm@example.com', subject: 'warm-up', text: 'x' })).toMatch(/^250/);
  const start = memoryOf(pid).rss;

  // random bytes, base64 in lines of 76: the mail is about MAIL_MIB on the wire
  const attachment = randomBytes(Math.floor((((MAIL_MIB * MiB * 3) / 4) * 76) / 78) - 64 * 1024);
  const raw = await new MailComposer({ from: 'a@abuser.test', to: 'big@example.com', subject: 'big', text: 'x', attachments: [{ filename: 'big.bin', content: attachment }] })
    .compile()
    .build();
  const answers = await Promise.all(Array.from({ length: MAILS }, (_, i) => send({ envelope: { from: 'a@abuser.test', to: [`big${i}@example.com`] }, raw })));
  const peak = memoryOf(pid).peak;
  const kinds = answers.map((a) => a.slice(0, 9));
  console.log(`answers: ${JSON.stringify(Object.fromEntries([...new Set(kinds)].map((k) => [k, kinds.filter((x) => x === k).length])))}`);

  const returnedAt = Date.now();
  let now = start;
  await waitUntil(
    () => {
      now = memoryOf(pid).rss;
      return now <= start + RETURN_MIB;
    },
    RETURN_MS,
    () => `the SMTP app to give its memory back: ${now} MiB, started at ${start} MiB (peak ${peak} MiB)\n${rig.logs()}`,
  );
  console.log(`SMTP app RSS: start ${start} MiB, peak ${peak} MiB, back to ${now} MiB ${Date.now() - returnedAt} ms after the last answer`);
  // at least one of the mails was taken in full: the flood measured a mail's cost, not only refusals
  expect(kinds.filter((k) => k.startsWith('250')).length).toBeGreaterThan(0);
  expect(peak).toBeLessThan(PEAK_MIB);
});
