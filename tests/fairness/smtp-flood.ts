// Org A's big-SMTP-mail flood, run as its own process by smtp-big-mail.test.ts: writing 16 mails of several MiB at
// once (nodemailer escapes every line of DATA in JavaScript) kept the test's process busy for up to a second a wave,
// and B's client, in that process, measured its own waits instead of the SMTP app's. Waves of FLOOD_MAILS mails
// until a line on stdin; each answer's first nine characters on a line of stdout.
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';

const { SMTP_PORT, SMTP_KEY, MAIL_MIB, FLOOD_MAILS } = process.env;

async function flood(): Promise<void> {
  // random bytes, base64 in lines of 76: the mail is about MAIL_MIB on the wire; made once
  const attachment = randomBytes(Math.floor((((Number(MAIL_MIB) * 1024 * 1024 * 3) / 4) * 76) / 78) - 64 * 1024);
  const raw = await new MailComposer({ from: 'a@abuser.test', to: 'big@example.com', subject: 'big', text: 'x', attachments: [{ filename: 'big.bin', content: attachment }] })
    .compile()
    .build();
  let isFlooding = true;
  process.stdin.once('data', () => (isFlooding = false));
  while (isFlooding) {
    await Promise.all(
      Array.from({ length: Number(FLOOD_MAILS) }, async (_, i) => {
        const client = nodemailer.createTransport({
          host: '127.0.0.1',
          port: Number(SMTP_PORT),
          secure: false,
          auth: { user: 'fairness', pass: SMTP_KEY! },
          tls: { rejectUnauthorized: false },
        });
        const answer = await client.sendMail({ envelope: { from: 'a@abuser.test', to: [`big${i}@example.com`] }, raw }).then(
          (info) => info.response,
          (error: { response?: string; message: string }) => error.response ?? error.message,
        );
        client.close();
        process.stdout.write(`${answer.slice(0, 9)}\n`);
      }),
    );
  }
  process.exit(0);
}

void flood();
