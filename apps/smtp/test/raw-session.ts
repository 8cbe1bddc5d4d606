import { connect, type Socket } from 'node:net';

/**
 * A bare SMTP client on the plain port, for what nodemailer never does: pipelining DATA content, dribbling bytes,
 * holding a mail open. `reply()` resolves with the next whole reply (its last line), or 'closed' once the server
 * ended the connection.
 * @example const s = await rawSession(port, '127.0.0.1'); await s.command('EHLO x'); s.write('MAIL FROM:<a@b.test>\r\n');
 */
export async function rawSession(port: number, host = '127.0.0.1') {
  const socket: Socket = connect({ port, host });
  socket.on('error', () => {}); // a reset is seen as 'closed'
  const replies: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  let isClosed = false;
  const deliver = (line: string) => {
    const next = waiting.shift();
    if (next) next(line);
    else replies.push(line);
  };
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (/^\d{3} /.test(line)) deliver(line); // the last line of a reply
    }
  });
  socket.on('close', () => {
    isClosed = true;
    for (const next of waiting.splice(0)) next('closed');
  });
  const reply = () => new Promise<string>((resolve) => (replies.length > 0 ? resolve(replies.shift()!) : isClosed ? resolve('closed') : waiting.push(resolve)));
  const session = {
    socket,
    greeting: '',
    reply,
    get isClosed() {
      return isClosed;
    },
    write: (text: string | Buffer) => socket.write(text),
    async command(line: string) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    /** EHLO and AUTH PLAIN with `key` (the plain port allows AUTH without TLS outside production). */
    async login(key: string) {
      await session.command('EHLO client.test');
      return session.command(`AUTH PLAIN ${Buffer.from(`\0any\0${key}`).toString('base64')}`);
    },
    close: () => socket.destroy(),
  };
  session.greeting = await reply();
  return session;
}

/** A small mail's content as DATA carries it, ended with the lone dot. */
export const mailContent = (subject: string, body = 'x') =>
  `From: hi@acme.test\r\nTo: ada@example.com\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}.${Date.now()}@client.test>\r\n\r\n${body}\r\n.\r\n`;
