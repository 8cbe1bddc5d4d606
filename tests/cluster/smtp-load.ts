import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { Rig } from '../faults/rig.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What an SMTP load accepted: the subject of each mail (unique per mail) and the message id its 250 named. */
export type SmtpLoad = { run: string; accepted: Map<string, string>; retries: number };

/**
 * Submits `count` mails over SMTP to the rig's SMTP replicas in turn (STARTTLS, AUTH PLAIN with the organization's
 * key), `concurrency` at a time, as a careful mailer does: a mail refused with a 4xx or cut off is submitted again
 * with the same Message-ID (its idempotency key), to the next replica, until a 250.
 * @example const load = await sendSmtpLoad(rig, 50);
 */
export async function sendSmtpLoad(rig: Rig, count: number, options: { concurrency?: number; onProgress?: (accepted: number) => void } = {}): Promise<SmtpLoad> {
  const run = randomUUID().slice(0, 8);
  const transports = rig.submissionPorts.map((port) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      auth: { user: 'cluster', pass: rig.org.key, method: 'PLAIN' },
      tls: { rejectUnauthorized: false },
    } as SMTPTransport.Options),
  );
  const accepted = new Map<string, string>();
  let retries = 0;
  let next = 0;
  const deadline = Date.now() + 120_000 + count * 200;
  async function submit(i: number) {
    const subject = `smtp ${run} #${i}`;
    const messageId = `<${run}-${i}@cluster.test>`;
    for (let tries = 0; ; tries++) {
      if (Date.now() > deadline) throw new Error(`mail ${i} was still not accepted at the deadline\n${rig.logs()}`);
      const transport = transports[(i + tries) % transports.length]!;
      const info = await transport
        .sendMail({ from: 'hello@acme.test', to: `s${i}@example.com`, subject, text: `mail ${i}`, messageId })
        .catch((error: { responseCode?: number }) => {
          // a 5xx is a refusal for good: the test is wrong, not the cluster
          if (error.responseCode && error.responseCode >= 500) throw error;
          return null;
        });
      const id = info && /queued as (msg_\S+)/.exec(info.response)?.[1];
      if (id) {
        accepted.set(subject, id);
        options.onProgress?.(accepted.size);
        return;
      }
      retries += 1;
      await sleep(200);
    }
  }
  try {
    await Promise.all(
      Array.from({ length: options.concurrency ?? 4 }, async () => {
        while (next < count) await submit(next++);
      }),
    );
  } finally {
    for (const transport of transports) transport.close();
  }
  return { run, accepted, retries };
}
