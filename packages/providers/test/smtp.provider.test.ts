import net from 'node:net';
import { Readable } from 'node:stream';
import { startSmtpServer, type TestSmtpServer } from '@tidings/testing';
import type { OutgoingEmail } from '../src/provider.types.ts';
import { createSmtpProvider, SMTP_MESSAGE_ID_HEADER } from '../src/smtp.provider.ts';
import { providerFailureOf, TEST_TIMEOUT_MS, verdictOf } from './provider-failure.ts';

// The SMTP adapter through nodemailer against a real SMTP server on loopback (smtp-server, parsing what it
// accepts): what it sends, and how each kind of reply becomes a ProviderError the worker can act on.
let server: TestSmtpServer;
let providers: Array<{ close(): void }> = [];
beforeAll(async () => {
  server = await startSmtpServer();
});
afterEach(() => {
  for (const p of providers) p.close();
  providers = [];
  server.received.length = 0;
  server.delayAcceptMs = 0;
});
afterAll(() => server.close());

const provider = (url = server.url) => {
  const smtp = createSmtpProvider({ url, poolSize: 1, timeoutMs: TEST_TIMEOUT_MS });
  providers.push(smtp);
  return smtp;
};
const email = (overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  from: 'Acme <hello@acme.test>',
  to: ['ada@example.com', 'grace@example.com'],
  subject: 'Hi',
  text: 'Hello',
  ...overrides,
});

/** One recipient: a refusal at RCPT TO then refuses the whole email (with two, the other would still get it). */
const toOne = () => email({ to: 'ada@example.com' });

/** A server on loopback that answers whatever it is sent with `reply`, then hangs up: it does not speak SMTP. */
async function notSmtp(reply: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.end(reply);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as net.AddressInfo;
  return {
    url: `smtp://user:pass@127.0.0.1:${port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

describe('SMTP adapter', () => {
  it('delivers the email, attachments streamed, with a Message-ID derived from our message id', async () => {
    const sent = email({ attachments: [{ filename: 'a.txt', contentType: 'text/plain', contentId: null, content: Readable.from([Buffer.from('file body')]) }] });
    const accepted = await provider().sendEmail(sent);
    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(accepted.providerMessageId).toBe(`<${sent.messageId}@acme.test>`);
    expect(mail.messageId).toBe(accepted.providerMessageId);
    expect(mail.envelope.to).toEqual(['ada@example.com', 'grace@example.com']);
    expect(mail.parsed.headers.get(SMTP_MESSAGE_ID_HEADER.toLowerCase())).toBe(sent.messageId);
    expect(mail.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['a.txt', 'file body']]);
  });

  it('a 5xx reply is a refusal: permanent', async () => {
    server.failNext(1, 550);
    const error = await providerFailureOf(provider().sendEmail(toOne()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'refused', status: 550 });
    expect(server.received).toHaveLength(0);
  });

  it('a 4xx reply is retryable (the server may take it later)', async () => {
    server.failNext(1, 451);
    const error = await providerFailureOf(provider().sendEmail(toOne()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'retryable', status: 451 });
  });

  it.each([
    ["SES's SMTP interface", 454, 'Throttling failure: Maximum sending rate exceeded.'],
    ['a rate limit', 421, '4.7.0 Try again later, closing connection. (rate limited)'],
    ['too many messages', 451, '4.7.1 Too many messages, slow down'],
  ])('a 4xx reply that says to slow down (%s) is a deferral, not a failure', async (_name, code, text) => {
    server.failNext(1, code, text);
    const error = await providerFailureOf(provider().sendEmail(toOne()));
    expect({ verdict: verdictOf(error), status: error.status }).toEqual({ verdict: 'deferred', status: code });
  });

  it('no final reply to DATA within the timeout is retryable', async () => {
    server.delayAcceptMs = TEST_TIMEOUT_MS * 3;
    const started = Date.now();
    const error = await providerFailureOf(provider().sendEmail(email()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'retryable', reason: 'provider_timeout' });
    expect(Date.now() - started).toBeLessThan(TEST_TIMEOUT_MS * 10);
  });

  it('nothing listening is retryable', async () => {
    const gone = await notSmtp('');
    await gone.close();
    const error = await providerFailureOf(provider(gone.url).sendEmail(email()));
    expect({ verdict: verdictOf(error), reason: error.reason }).toEqual({ verdict: 'retryable', reason: 'provider_timeout' });
  });

  it.each([
    ['an HTTP server', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'],
    ['a greeting cut off', '220-smtp.example.com'],
  ])('a malformed answer (%s) is a retryable ProviderError', async (_name, reply) => {
    const other = await notSmtp(reply);
    try {
      const error = await providerFailureOf(provider(other.url).sendEmail(email()));
      expect(verdictOf(error)).toBe('retryable');
    } finally {
      await other.close();
    }
  });
});
