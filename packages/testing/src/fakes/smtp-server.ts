import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export type ReceivedMail = { envelope: { from: string; to: string[] }; parsed: ParsedMail; messageId: string | undefined /** The DATA as received. */; raw: Buffer };

export type TestSmtpServer = {
  /** `smtp://user:pass@127.0.0.1:port` for SMTP_URL. */
  url: string;
  /** Every mail the server accepted (its final reply to DATA was 250), parsed, in order. */
  received: ReceivedMail[];
  /** Mails per Message-ID that arrived more than once: the repeats SMTP could not prevent. */
  repeats(): number;
  /** The next `count` mails are answered `code` (4xx: try later, 5xx: refused) at RCPT TO, with `text` when given. */
  failNext(count: number, code: number, text?: string): void;
  /** Waits this long before the final reply to DATA (the mail is accepted only then). */
  delayAcceptMs: number;
  close(): Promise<void>;
};

/**
 * A real SMTP server in this process (smtp-server) that parses every mail it accepts (mailparser). It requires
 * AUTH with the user and password of its URL and offers no STARTTLS, so nodemailer talks plain SMTP to it on loopback.
 * @example const smtp = await startSmtpServer(); ... SMTP_URL: smtp.url ... expect(smtp.received[0].parsed.subject).toBe('Hi');
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const faults: { remaining: number; code: number; text?: string }[] = [];
  const user = 'tidings';
  const pass = 'smtp-test-password';
  const state = { delayAcceptMs: 0 };
  // sessions whose client hung up: a mail still being accepted for one of them was never confirmed, so it is dropped
  const closedSessions = new Set<string>();
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onClose(session) {
      closedSessions.add(session.id);
    },
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) return callback(null, { user });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      const fault = faults.find((f) => f.remaining > 0);
      if (!fault) return callback();
      fault.remaining -= 1;
      callback(Object.assign(new Error(fault.text ?? (fault.code >= 500 ? 'Mailbox unavailable' : 'Try again later')), { responseCode: fault.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      new Promise<Buffer>((resolve, reject) => stream.once('end', () => resolve(Buffer.concat(chunks))).once('error', reject))
        .then(async (raw) => ({ raw, parsed: await simpleParser(raw) }))
        .then(async ({ raw, parsed }) => {
          if (state.delayAcceptMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayAcceptMs));
          if (closedSessions.has(session.id)) return callback(new Error('client went away before the mail was accepted'));
          const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
          received.push({ envelope, parsed, messageId: parsed.messageId, raw });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  };
  const server = new SMTPServer(options);
  // A client that dies mid-session (a send-worker SIGKILLed by a fault scenario) resets its socket; the server emits
  // that as 'error', which unhandled would end the test process. A dropped client is what those tests cause on purpose.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') console.error('test SMTP server:', error);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(state, {
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    received,
    repeats() {
      const counts = new Map<string, number>();
      for (const mail of received) counts.set(mail.messageId ?? '', (counts.get(mail.messageId ?? '') ?? 0) + 1);
      return [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    },
    failNext(count: number, code: number, text?: string) {
      faults.push({ remaining: count, code, text });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
