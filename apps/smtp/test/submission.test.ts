import { randomBytes } from 'node:crypto';
import { createApiKey, getMessageSource, newId } from '@tidings/core';
import { setupSmtp } from './setup.ts';

let t: Awaited<ReturnType<typeof setupSmtp>>;
beforeAll(async () => {
  t = await setupSmtp({ RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(() => t.close());

/** The message id of a `250 2.0.0 queued as <id>` answer, failing on any other. */
function queuedId(response: string): string {
  const match = /^250 2\.0\.0 queued as (msg_\S+)$/.exec(response);
  if (!match) throw new Error(`not a queued answer: ${response}`);
  return match[1]!;
}

async function liveOrgWithDomain() {
  const org = await t.org({ mode: 'live' });
  await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: org.orgId, name: 'acme.test', status: 'verified', provider: 'sandbox', records: [] } });
  return org;
}

describe('SMTP submission through nodemailer', () => {
  it('takes a mail over STARTTLS with AUTH PLAIN and makes the message message.send would: recipients, content, headers', async () => {
    const { orgId, key } = await liveOrgWithDomain();
    const info = await t.client(key).sendMail({
      from: 'Acme Billing <billing@acme.test>',
      to: 'ada@example.com',
      cc: ['bo@example.com'],
      replyTo: 'support@acme.test',
      subject: 'Your invoice',
      text: 'Invoice attached.',
      html: '<p>Invoice attached.</p>',
      headers: { 'X-Entity-Ref-ID': 'invoice-1042' },
    });
    const id = queuedId(info.response);
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id } });
    expect(message).toMatchObject({
      orgId,
      mode: 'live',
      channelType: 'email',
      status: 'queued',
      to: 'ada@example.com',
      from: 'Acme Billing <billing@acme.test>',
      cc: ['bo@example.com'],
      bcc: [],
      replyTo: ['support@acme.test'],
      subject: 'Your invoice',
      text: 'Invoice attached.',
      html: '<p>Invoice attached.</p>',
    });
    expect(message.headers).toMatchObject({ 'X-Entity-Ref-ID': 'invoice-1042' });
    // the transport's and the reserved headers are not passed on
    expect(Object.keys(message.headers as object).map((h) => h.toLowerCase())).not.toEqual(expect.arrayContaining(['message-id']));
    expect(Object.keys(message.headers as object).map((h) => h.toLowerCase())).not.toContain('mime-version');
    // its first status event and job outbox were written with it, as for message.send
    expect(await t.deps.db.messageStatusEvent.count({ where: { messageId: id } })).toBe(1);
  });

  it('takes a mail over implicit TLS with AUTH LOGIN; a test key sends through the sandbox from any address', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const info = await t.client(key, { secure: true, method: 'LOGIN' }).sendMail({ from: 'anyone@unverified.test', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: queuedId(info.response) } });
    expect(message).toMatchObject({ orgId, mode: 'test', provider: 'sandbox', from: 'anyone@unverified.test' });
  });

  it('keeps a 10 MiB attachment and an inline image (Content-ID), each stored once', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const file = randomBytes(10 * 1024 * 1024);
    const logo = randomBytes(2048);
    const info = await t.client(key).sendMail({
      from: 'hi@acme.test',
      to: 'ada@example.com',
      subject: 'Files',
      html: '<p>Logo: <img src="cid:logo@acme"></p>',
      attachments: [
        { filename: 'big.bin', content: file, contentType: 'application/octet-stream' },
        { filename: 'logo.png', content: logo, contentType: 'image/png', cid: 'logo@acme' },
      ],
    });
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: queuedId(info.response) } });
    expect(message.html).toContain('cid:logo@acme');
    // the inline part comes first: nodemailer puts it in the html's multipart/related
    expect(message.attachments).toEqual([
      expect.objectContaining({ filename: 'logo.png', contentType: 'image/png', size: logo.length, contentId: 'logo@acme' }),
      expect.objectContaining({ filename: 'big.bin', contentType: 'application/octet-stream', size: file.length, contentId: null }),
    ]);
    const stored = await t.deps.db.$queryRaw<{ size: number }[]>`SELECT octet_length("bytes")::int AS size FROM "AttachmentContent" WHERE "orgId" = ${orgId} ORDER BY size`;
    expect(stored.map((s) => s.size)).toEqual([logo.length, file.length]);
  }, 60_000);

  it('makes envelope recipients that To and Cc do not name the Bcc', async () => {
    const { key } = await t.org({ mode: 'test' });
    const info = await t
      .client(key)
      .sendMail({ from: 'hi@acme.test', to: 'ada@example.com', cc: 'bo@example.com', bcc: ['cy@example.com', 'Di@Example.com'], subject: 'Hi', text: 'x' });
    expect(info.envelope.to).toHaveLength(4);
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: queuedId(info.response) } });
    expect(message).toMatchObject({ to: 'ada@example.com', cc: ['bo@example.com'], bcc: ['cy@example.com', 'di@example.com'] });
  });

  it('keeps a Cc display name on the message and in the email handed to the provider', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const info = await t.client(key).sendMail({ from: 'hi@acme.test', to: 'ada@example.com', cc: ['"Ann Example" <Ann@Example.com>', 'bo@example.com'], subject: 'Hi', text: 'x' });
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: queuedId(info.response) } });
    expect(message).toMatchObject({ to: 'ada@example.com', cc: ['"Ann Example" <ann@example.com>', 'bo@example.com'], bcc: [] });
    const source = (await getMessageSource(t.deps, orgId, message.id, 'test')).toString();
    expect(source).toMatch(/^Cc: "?Ann Example"? <ann@example\.com>, bo@example\.com\r?$/m);
  });

  it('keeps several To addresses as To recipients of one message', async () => {
    const { key } = await t.org({ mode: 'test' });
    const info = await t.client(key).sendMail({ from: 'hi@acme.test', to: ['ada@example.com', 'Grace@example.com'], cc: 'bo@example.com', subject: 'Hi', text: 'x' });
    const message = await t.deps.db.message.findUniqueOrThrow({ where: { id: queuedId(info.response) } });
    expect(message).toMatchObject({ to: 'ada@example.com', additionalTo: ['grace@example.com'], cc: ['bo@example.com'], bcc: [] });
  });

  it('queues 100 mails over one pooled connection, each its own message', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const pool = t.client(key, { pool: true, maxConnections: 1 });
    const infos = await Promise.all(Array.from({ length: 100 }, (_, i) => pool.sendMail({ from: 'hi@acme.test', to: `r${i}@example.com`, subject: `pooled #${i}`, text: `${i}` })));
    const ids = infos.map((info) => queuedId(info.response));
    expect(new Set(ids).size).toBe(100);
    expect(await t.deps.db.message.count({ where: { orgId, subject: { startsWith: 'pooled #' } } })).toBe(100);
  }, 60_000);

  it('makes one message of a mail sent again with the same Message-ID after a reconnect; another organization gets its own', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const messageId = `<${randomBytes(8).toString('hex')}@client.test>`;
    const mail = { from: 'hi@acme.test', to: 'ada@example.com', subject: 'Once', text: 'only once', messageId };
    const first = t.client(key);
    const firstId = queuedId((await first.sendMail(mail)).response);
    first.close();
    // a new connection, and a mail built again (new boundaries, new Date): the same message
    const againId = queuedId((await t.client(key).sendMail({ ...mail, date: new Date(Date.now() + 5000) })).response);
    expect(againId).toBe(firstId);
    expect(await t.deps.db.message.count({ where: { orgId, subject: 'Once' } })).toBe(1);

    // the same Message-ID from another organization neither replays this one's answer nor touches its message
    const other = await t.org({ mode: 'test' });
    const otherId = queuedId((await t.client(other.key).sendMail({ ...mail, subject: 'Other org' })).response);
    expect(otherId).not.toBe(firstId);
    expect(await t.deps.db.message.findUniqueOrThrow({ where: { id: otherId } })).toMatchObject({ orgId: other.orgId, subject: 'Other org' });
    expect(await t.deps.db.message.findUniqueOrThrow({ where: { id: firstId } })).toMatchObject({ orgId, subject: 'Once' });
  });

  it('makes one message of the same Message-ID sent on several connections at once: every client is told its id', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const mail = { from: 'hi@acme.test', to: 'ada@example.com', subject: 'At once', text: 'x', messageId: `<${randomBytes(8).toString('hex')}@client.test>` };
    const clients = Array.from({ length: 4 }, () => t.client(key));
    try {
      // connected first, so the four mails reach the server together
      await Promise.all(clients.map((client) => client.verify()));
      const ids = await Promise.all(clients.map(async (client) => queuedId((await client.sendMail(mail)).response)));
      expect(new Set(ids).size).toBe(1);
      expect(await t.deps.db.message.count({ where: { orgId, subject: 'At once' } })).toBe(1);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('keeps the modes apart: a sending test key of the same organization, resending the Message-ID of a live mail, makes its own sandbox message and leaves the live one alone', async () => {
    const { orgId, key } = await liveOrgWithDomain();
    const testKey = await createApiKey(t.deps, orgId, 'live', { name: 'SMTP test', permission: 'sending', mode: 'test' });
    const mail = { from: 'hi@acme.test', to: 'ada@example.com', subject: 'Modes', text: 'x', messageId: `<${randomBytes(8).toString('hex')}@client.test>` };
    const liveId = queuedId((await t.client(key).sendMail(mail)).response);
    const testId = queuedId((await t.client(testKey.key).sendMail({ ...mail, subject: 'Modes (test)' })).response);
    expect(testId).not.toBe(liveId);
    expect(await t.deps.db.message.findUniqueOrThrow({ where: { id: testId } })).toMatchObject({ orgId, mode: 'test', provider: 'sandbox', subject: 'Modes (test)' });
    expect(await t.deps.db.message.findUniqueOrThrow({ where: { id: liveId } })).toMatchObject({ orgId, mode: 'live', subject: 'Modes' });
  });
});
