import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import type { Rig } from '../faults/rig.ts';
import { waitFor } from '@tidings/testing';
import { boundOf, p99, PROBE_EVERY_MS, PROBES, startFairnessRig } from './fairness.ts';

// A big-SMTP-mail flood: org A (a test key) sends FLOOD_MAILS mails of FAIRNESS_SMTP_MAIL_MIB at once over SMTP, wave
// after wave, while org B sends small mails over SMTP to the same app and measures each one's time to its 250. The
// attack run saw B's SMTP send go from 213 ms to 8,686 ms while the app buffered and parsed 16 x 47 MiB at once.
const FLOOD_MAILS = 16;
const MAIL_MIB = Number(process.env.FAIRNESS_SMTP_MAIL_MIB || 47);
/** B's SMTP probes per phase: one every PROBE_EVERY_MS (as B's API probes), or as soon as the one before is answered. */
const SMTP_PROBES = Math.min(PROBES, 40);

let rig: Rig;
let abuser: { orgId: string; key: string };
beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig({ smtpSubmission: true }));
}, 180_000);
afterAll(() => rig?.close());

const transport = (key: string, pool = false) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: rig.submissionPort!,
    secure: false,
    auth: { user: 'fairness', pass: key },
    tls: { rejectUnauthorized: false },
    ...(pool ? { pool: true, maxConnections: 1 } : {}),
  });

/** B's SMTP sends, one every PROBE_EVERY_MS over one pooled connection: ms from each sendMail to its 250. */
async function smtpProbe(label: string): Promise<number[]> {
  const client = transport(rig.org.key, true);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < SMTP_PROBES; i++) {
      const t0 = Date.now();
      await client.sendMail({ from: 'hello@acme.test', to: `smtp-probe${i}@example.com`, subject: `${label} ${i}`, text: 'probe' });
      latencies.push(Date.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 + PROBE_EVERY_MS - Date.now())));
    }
  } finally {
    client.close();
  }
  return latencies;
}

it(`org B's SMTP sends stay within the bound while org A sends ${FLOOD_MAILS} mails of ${MAIL_MIB} MiB at once, again and again`, async () => {
  await smtpProbe('smtp warm-up');
  const baseline = await smtpProbe('smtp baseline');

  // A floods from a process of its own (smtp-flood.ts), so that B's client here measures the SMTP app, not this
  // process's own work of sending A's mails
  const answers = new Map<string, number>();
  const flooder = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'smtp-flood.ts')], {
    env: { ...process.env, SMTP_PORT: String(rig.submissionPort), SMTP_KEY: abuser.key, MAIL_MIB: String(MAIL_MIB), FLOOD_MAILS: String(FLOOD_MAILS) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => flooder.once('exit', resolve));
  createInterface({ input: flooder.stdout! }).on('line', (kind) => answers.set(kind, (answers.get(kind) ?? 0) + 1));
  // the first wave under way (its first refusals come at MAIL FROM) before B measures
  await waitFor(() => answers.size > 0, 120_000, "A's flood to be under way");
  const during = await smtpProbe('smtp during');
  flooder.stdin!.write('stop\n'); // after the wave under way
  await exited;

  const bound = boundOf(p99(baseline));
  console.log(
    `big-SMTP-mail flood (${FLOOD_MAILS} x ${MAIL_MIB} MiB): B's SMTP send p99 ${p99(baseline)} ms alone, ${p99(during)} ms during (bound ${bound} ms); A's answers ${JSON.stringify(Object.fromEntries(answers))}`,
  );
  console.log(`big-SMTP-mail flood, during, ms, in order: ${during.join(' ')}`);
  // every one of A's mails was answered (the flood ended), and some of them are the caps' refusals, not silence
  expect([...answers.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(FLOOD_MAILS);
  expect(p99(during)).toBeLessThanOrEqual(bound);
});
