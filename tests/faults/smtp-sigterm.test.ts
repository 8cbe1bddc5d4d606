import { connect, type Socket } from 'node:net';
import { startRig, waitUntil } from './rig.ts';

// SIGTERM reaches the SMTP app while clients are in the middle of DATA (a deploy, a scale-down). Each such mail is
// either accepted whole (250, and then it is stored) or refused with a 4xx the client retries: never a 250 for a mail
// that was not stored. Idle connections are told 421 and closed. CI runs this against the built app too.

/** A bare SMTP client on a socket: `reply()` resolves with the next whole reply (last line), or null when the server closed. */
function smtpClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  const waiting: ((reply: string | null) => void)[] = [];
  const replies: (string | null)[] = [];
  let buffer = '';
  const deliver = (reply: string | null) => {
    const next = waiting.shift();
    if (next) next(reply);
    else replies.push(reply);
  };
  socket.on('data', (chunk) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (/^\d{3} /.test(line)) deliver(line);
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    deliver(null);
    for (const next of waiting.splice(0)) next(null);
  });
  const reply = () => (replies.length > 0 ? Promise.resolve(replies.shift()!) : new Promise<string | null>((resolve) => waiting.push(resolve)));
  return {
    reply,
    write: (data: string) => socket.write(data),
    async command(line: string, expected: number) {
      socket.write(`${line}\r\n`);
      const answer = await reply();
      if (!answer?.startsWith(String(expected))) throw new Error(`${line.split(' ')[0]}: expected ${expected}, got ${answer}`);
    },
    close: () => socket.destroy(),
  };
}

it('SIGTERM while clients are in DATA: every mail is accepted whole and stored, or refused with a 4xx; idle connections get 421', async () => {
  const rig = await startRig({ sendWorkers: 1, smtpSubmission: true });
  const { db } = rig.deps;
  const clients: ReturnType<typeof smtpClient>[] = [];
  try {
    const open = async () => {
      const client = smtpClient(rig.submissionPort!);
      clients.push(client);
      await client.reply(); // 220
      await client.command('EHLO faults.test', 250);
      await client.command(`AUTH PLAIN ${Buffer.from(`\0any\0${rig.org.key}`).toString('base64')}`, 235);
      return client;
    };
    const idle = await open();
    // as many mails in DATA as one key may have at once (SMTP_MAX_MAILS_PER_KEY's default)
    const inData = await Promise.all(
      Array.from({ length: 8 }, async (_, n) => {
        const client = await open();
        await client.command('MAIL FROM:<hello@acme.test>', 250);
        await client.command(`RCPT TO:<drain${n}@example.com>`, 250);
        await client.command('DATA', 354);
        // the headers and half the body now, the rest after the signal
        client.write(`From: hello@acme.test\r\nTo: drain${n}@example.com\r\nSubject: smtp drain #${n}\r\nMessage-ID: <drain-${n}-${Date.now()}@faults.test>\r\n\r\n`);
        client.write(`${'a'.repeat(4000)}\r\n`);
        return client;
      }),
    );

    const exit = rig.signal(rig.submission!, 'SIGTERM');
    // the idle connection is told the server is going, and closed
    expect(await idle.reply()).toMatch(/^421 4\.3\.2 /);
    for (const client of inData) client.write(`${'b'.repeat(4000)}\r\n.\r\n`);
    const answers = await Promise.all(inData.map((client) => client.reply()));
    expect(await exit).toBe(0);

    const accepted = answers.flatMap((answer) => (answer && /^250 2\.0\.0 queued as (msg_\S+)$/.exec(answer)?.[1]) || []);
    const refused = answers.filter((answer) => answer?.startsWith('4'));
    // every answer is one of the two (a closed connection without an answer would leave the client in doubt)
    expect(accepted.length + refused.length).toBe(inData.length);
    // the mails already being received when the signal came are answered, not dropped
    expect(accepted.length).toBe(inData.length);
    await waitUntil(
      async () => (await db.message.count({ where: { id: { in: accepted } } })) === accepted.length,
      10_000,
      () => 'a mail answered 250 was not stored',
    );
    expect(await db.message.count({ where: { orgId: rig.org.orgId, subject: { startsWith: 'smtp drain #' } } })).toBe(accepted.length);
  } finally {
    for (const client of clients) client.close();
    await rig.close();
  }
}, 180_000);
