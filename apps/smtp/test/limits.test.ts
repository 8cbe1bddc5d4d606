import { createApiKey } from '@tidings/core';
import { lockWaiters, waitFor } from '@tidings/testing';
import { mailContent, rawSession } from './raw-session.ts';
import { setupSmtp } from './setup.ts';

let t: Awaited<ReturnType<typeof setupSmtp>>;
beforeAll(async () => {
  t = await setupSmtp({
    SEND_BODY_LIMIT_BYTES: String(64 * 1024),
    SMTP_MAX_MAILS_PER_KEY: '2',
    SMTP_MAX_CONNECTIONS_PER_ADDRESS: '4',
    SMTP_MAX_CONNECTIONS: '5',
    SMTP_MAX_MIME_PARTS: '50',
    RATE_LIMIT_PER_MINUTE: '3',
    ORG_RATE_LIMIT_PER_MINUTE: '4',
  });
});
afterAll(() => t.close());

const signedIn = async (key: string) => {
  const session = await rawSession(t.server.port);
  expect(await session.login(key)).toMatch(/^235 /);
  return session;
};
const startMail = async (session: Awaited<ReturnType<typeof signedIn>>) => {
  expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
  expect(await session.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
  expect(await session.command('DATA')).toMatch(/^354 /);
};
/** Whether a transaction of this database holds the message table's SHARE lock. */
const holderStarted = async () => {
  const [row] = await t.deps.db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'Message' AND l.mode = 'ShareLock' AND l.granted`,
  );
  return row!.n === 1;
};
const headerOf = (subject: string) => `From: hi@acme.test\r\nTo: ada@example.com\r\nSubject: ${subject}\r\n\r\n`;

describe('SMTP submission is bounded before and while the content arrives', () => {
  it('refuses a mail over SEND_BODY_LIMIT_BYTES as soon as the limit is passed (552), not once it is all sent', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    await startMail(session);
    session.write(headerOf('too big'));
    // past the limit and not ended: the answer must come now, without the client's final dot
    session.write(`${'y'.repeat(76)}\r\n`.repeat(1200));
    expect(await session.reply()).toMatch(/^552 5\.3\.4 Message too big: at most 65536 bytes/);
    expect(await session.reply()).toBe('closed');
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it("parses at most four of a key's mails at once: a fifth is answered only once one of the four has arrived", async () => {
    const wide = await setupSmtp({ SEND_BODY_LIMIT_BYTES: String(64 * 1024) });
    try {
      const { orgId, key } = await wide.org({ mode: 'test' });
      // one after the other: the first four take the key's places in order at their DATA
      const sessions: Awaited<ReturnType<typeof rawSession>>[] = [];
      for (let i = 0; i < 5; i++) {
        const session = await rawSession(wide.server.port);
        expect(await session.login(key)).toMatch(/^235 /);
        await startMail(session);
        sessions.push(session);
      }
      const [first, ...others] = sessions;
      const fifth = others.pop()!;
      // four held open mid-mail: their turns are not over
      for (const [i, session] of [first!, ...others].entries()) session.write(headerOf(`held ${i}`) + `${'a'.repeat(76)}\r\n`.repeat(100));
      fifth.write(`${headerOf('fifth')}b\r\n.\r\n`);
      const answers: string[] = [];
      const fifthAnswered = fifth.reply().then((answer) => answers.push(`fifth ${answer}`));
      // the first's end lets the fifth go: its answer comes after the first's
      const firstAnswer = await first!.command('x\r\n.');
      answers.push(`first ${firstAnswer}`);
      await fifthAnswered;
      expect(answers.map((a) => a.slice(0, 13))).toEqual(['first 250 2.0', 'fifth 250 2.0']);
      for (const session of others) expect(await session.command('x\r\n.')).toMatch(/^250 2\.0\.0 queued/);
      for (const session of sessions) session.close();
      expect(await wide.deps.db.message.count({ where: { orgId } })).toBe(5);
    } finally {
      await wide.close();
    }
  });

  it("stores a key's small mails side by side: the second's store does not wait for the first's", async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const [first, second] = [await signedIn(key), await signedIn(key)];
    await startMail(first);
    await startMail(second);
    // no message can be written while this transaction holds the table: each store waits on the lock where it is
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const holding = t.deps.db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE "Message" IN SHARE MODE');
        await released;
      },
      { timeout: 60_000 },
    );
    try {
      await waitFor(async () => (await lockWaiters(t.deps.db)) === 0 && (await holderStarted()), 10_000, 'the lock held');
      first.write(mailContent('first'));
      await waitFor(async () => (await lockWaiters(t.deps.db)) === 1, 10_000, "the first mail's store waiting on the lock");
      second.write(mailContent('second'));
      // in the key's turn, the second store would start only once the first had ended
      await waitFor(async () => (await lockWaiters(t.deps.db)) === 2, 10_000, "the second mail's store waiting beside the first");
    } finally {
      release();
      await holding;
    }
    expect(await first.reply()).toMatch(/^250 2\.0\.0 queued/);
    expect(await second.reply()).toMatch(/^250 2\.0\.0 queued/);
    first.close();
    second.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(2);
  });

  it("refuses the mail that would pass the key's SMTP_MAX_RECEIVING_BYTES_PER_KEY with 452 4.3.1 at once, queuing nothing", async () => {
    const small = await setupSmtp({ SMTP_MAX_RECEIVING_BYTES_PER_KEY: String(40 * 1024) });
    try {
      const { orgId, key } = await small.org({ mode: 'test' });
      const session = await rawSession(small.server.port);
      expect(await session.login(key)).toMatch(/^235 /);
      expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
      expect(await session.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
      expect(await session.command('DATA')).toMatch(/^354 /);
      session.write(headerOf('over budget') + `${'c'.repeat(76)}\r\n`.repeat(700)); // about 54 KiB, not ended
      expect(await session.reply()).toMatch(/^452 4\.3\.1 Too much mail being received at once with this API key/);
      session.close();
      expect(await small.deps.db.message.count({ where: { orgId } })).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('caps the mails one key sends at once: past SMTP_MAX_MAILS_PER_KEY, MAIL FROM gets 451 4.7.0 before any content', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const sessions = [await signedIn(key), await signedIn(key), await signedIn(key)];
    expect(await sessions[0]!.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await sessions[1]!.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await sessions[2]!.command('MAIL FROM:<hi@acme.test>')).toMatch(/^451 4\.7\.0 Too many mails at once with this API key: at most 2/);
    // the first mail answered frees its slot
    expect(await sessions[0]!.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
    expect(await sessions[0]!.command('DATA')).toMatch(/^354 /);
    sessions[0]!.write(mailContent('slot one'));
    expect(await sessions[0]!.reply()).toMatch(/^250 2\.0\.0 queued as msg_/);
    expect(await sessions[2]!.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    for (const session of sessions) session.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(1);
  });

  it("answers a refused rate verdict at MAIL FROM, the organization's ceiling of all its keys included (the API's policy)", async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const second = await createApiKey(t.deps, orgId, 'test', { name: 'second', permission: 'sending', mode: 'test' });
    const session = await signedIn(key);
    for (let i = 0; i < 3; i++) {
      await startMail(session);
      session.write(mailContent(`within ${i}`));
      expect(await session.reply()).toMatch(/^250 2\.0\.0 queued/);
    }
    expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^451 4\.7\.0 Rate limit of 3 requests per minute exceeded; retry in \d+ s$/);
    const other = await signedIn(second.key);
    await startMail(other);
    other.write(mailContent('fourth of the organization'));
    expect(await other.reply()).toMatch(/^250 2\.0\.0 queued/);
    // the second key is within its own limit, the organization is not
    expect(await other.command('MAIL FROM:<hi@acme.test>')).toMatch(/^451 4\.7\.0 The organization's rate limit of 4 requests per minute, all its keys together, is exceeded/);
    session.close();
    other.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(4);
  });

  it('refuses a mail of 3,000 MIME parts with a permanent 554 5.6.0 (not 451), and the session goes on', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    await startMail(session);
    const parts = Array.from({ length: 3000 }, (_, i) => `--b\r\n\r\n${i}\r\n`).join('');
    session.write(`${headerOf('parts').replace('\r\n\r\n', '\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n')}${parts}--b--\r\n.\r\n`);
    expect(await session.reply()).toBe('554 5.6.0 Too many MIME parts: a mail may hold at most 50');
    expect(await session.command('NOOP')).toMatch(/^250 /);
    session.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('answers a client that pipelines the DATA content without waiting for 354', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const session = await signedIn(key);
    session.write(`MAIL FROM:<hi@acme.test>\r\nRCPT TO:<ada@example.com>\r\nDATA\r\n${mailContent('pipelined')}`);
    const answers = [await session.reply(), await session.reply(), await session.reply(), await session.reply()];
    expect(answers.slice(0, 3).map((a) => a.slice(0, 3))).toEqual(['250', '250', '354']);
    expect(answers[3]).toMatch(/^250 2\.0\.0 queued as msg_/);
    session.close();
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(1);
  });

  it('answers a pipelined DATA content whose MAIL FROM was refused, rather than stall', async () => {
    const { key } = await t.org({ mode: 'test' });
    const holders = [await signedIn(key), await signedIn(key)];
    for (const holder of holders) expect(await holder.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    const session = await signedIn(key);
    session.write(`MAIL FROM:<hi@acme.test>\r\nRCPT TO:<ada@example.com>\r\nDATA\r\n${mailContent('refused pipelined')}`);
    expect(await session.reply()).toMatch(/^451 4\.7\.0 Too many mails at once/);
    expect(await session.reply()).toMatch(/^503 /);
    expect(await session.reply()).toMatch(/^503 /);
    for (const s of [...holders, session]) s.close();
  });
});

describe('SMTP connections are capped', () => {
  it('refuses a connection past SMTP_MAX_CONNECTIONS_PER_ADDRESS with 421 4.7.0, and past SMTP_MAX_CONNECTIONS from any address', async () => {
    const open = [];
    for (let i = 0; i < 4; i++) {
      const session = await rawSession(t.server.port);
      expect(session.greeting).toMatch(/^220 /);
      open.push(session);
    }
    const fifth = await rawSession(t.server.port);
    expect(fifth.greeting).toBe('421 4.7.0 Too many connections from this address: at most 4 at once');
    // another address (IPv6 loopback) still gets in, up to the total
    const other = await rawSession(t.server.port, '::1');
    expect(other.greeting).toMatch(/^220 /);
    const overTotal = await rawSession(t.server.port, '::1');
    expect(overTotal.greeting).toBe('421 4.7.0 Too many connections to this server: try again in a moment');
    for (const session of [...open, fifth, other, overTotal]) session.close();
  });
});
