import { rawSession } from './raw-session.ts';
import { setupSmtp } from './setup.ts';

let t: Awaited<ReturnType<typeof setupSmtp>>;
beforeAll(async () => {
  t = await setupSmtp({ SMTP_COMMAND_TIMEOUT_MS: '1500', SMTP_DATA_TIMEOUT_MS: '2500' });
});
afterAll(() => t.close());

/** Writes `text` a byte (or a line) at a time, every `everyMs`, until the server ends the connection or the text is out. */
async function dribble(session: Awaited<ReturnType<typeof rawSession>>, pieces: string[], everyMs: number) {
  for (const piece of pieces) {
    if (session.isClosed) return;
    session.write(piece);
    // the client's own pace: the slowness is the behaviour under test, not a wait for a condition
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe('SMTP commands and DATA have a total deadline', () => {
  it('drops a client that dribbles its first command a byte at a time, though each byte comes before the idle timeout', async () => {
    const session = await rawSession(t.server.port);
    const startedMs = Date.now();
    const dribbling = dribble(session, [...'EHLO client.test\r\n'], 300);
    expect(await session.reply()).toBe('421 4.4.2 No complete command within 1500 ms: closing the connection');
    expect(Date.now() - startedMs).toBeLessThan(5_000); // the whole line would have taken 5.4 s
    await dribbling;
    expect(await session.reply()).toBe('closed');
  });

  it('drops a client that dribbles the DATA content, and queues nothing', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const session = await rawSession(t.server.port);
    expect(await session.login(key)).toMatch(/^235 /);
    expect(await session.command('MAIL FROM:<hi@acme.test>')).toMatch(/^250 /);
    expect(await session.command('RCPT TO:<ada@example.com>')).toMatch(/^250 /);
    expect(await session.command('DATA')).toMatch(/^354 /);
    const lines = ['From: hi@acme.test\r\n', 'To: ada@example.com\r\n', 'Subject: slow\r\n', '\r\n', ...Array.from({ length: 20 }, () => 'x\r\n'), '.\r\n'];
    const dribbling = dribble(session, lines, 400);
    expect(await session.reply()).toBe('421 4.4.2 The mail was not received in full within 2500 ms: closing the connection');
    await dribbling;
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('leaves a client that answers in time alone, however long its session', async () => {
    const { key } = await t.org({ mode: 'test' });
    const client = t.client(key, { pool: true });
    await client.sendMail({ from: 'hi@acme.test', to: 'ada@example.com', subject: 'in time', text: 'x' });
    const session = await rawSession(t.server.port);
    for (let i = 0; i < 4; i++) {
      expect(await session.command('NOOP')).toMatch(/^250 /);
      await new Promise((resolve) => setTimeout(resolve, 800)); // each command well within its 1.5 s; 3.2 s in all
    }
    session.close();
  });
});
