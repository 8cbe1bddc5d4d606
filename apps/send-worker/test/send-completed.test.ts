import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCertificate } from '@tidings/testing';
import { removeUnneededAttachments, SANDBOX_ATTACHMENT_RETENTION_MS } from '@tidings/core';
import { startSendWorker, type SendWorker } from '../src/send-worker.ts';
import { messageOnceIn, startPipeline, waitFor } from './harness.ts';

// cc, bcc, replyTo, headers, attachments (inline and fetched by path) and MMS media through the real providers' SDKs
// against the fakes, and through the sandbox; suppressed copies; a path that fails at send time.

// A throwaway certificate for `localhost`, made for this run: the https server the `path` attachments come from.
const { cert, key } = makeTestCertificate('localhost');

const LOGO = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
/** The next answers of /flaky, in order; then 200 with LOGO. */
let flakyStatuses: number[] = [];
const fileRequests: string[] = [];
const files = https.createServer({ cert, key }, (req, res) => {
  fileRequests.push(req.url!);
  if (req.url === '/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(LOGO);
  if (req.url === '/flaky') {
    const status = flakyStatuses.shift();
    if (status) return void res.writeHead(status).end('not now');
    return void res.writeHead(200).end(LOGO);
  }
  res.writeHead(404).end('no such file');
});

let h: Awaited<ReturnType<typeof startPipeline>>;
let worker: SendWorker;
let filesUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `https://localhost:${(files.address() as AddressInfo).port}`;
  h = await startPipeline({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  worker = await startSendWorker(h.deps, { attachmentFetch: { ca: cert, resolve: async () => [{ address: '127.0.0.1', family: 4 }] } });
});
afterAll(async () => {
  await worker.close();
  await h.close();
  await new Promise((resolve) => {
    files.close(resolve);
    files.closeAllConnections();
  });
});
beforeEach(() => {
  h.resend.reset();
  h.resend.state.emails.length = 0;
  h.telnyx.reset();
  h.telnyx.state.messages.length = 0;
});

type Api = Awaited<ReturnType<typeof h.testOrg>>['api'];
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 15_000);

describe('through Resend (live key)', () => {
  it('sends cc, bcc, reply_to, headers and attachments (inline content and a fetched path) with the official SDK', async () => {
    const { api } = await h.liveOrg();
    const pdf = Buffer.from('%PDF-1.4 invoice 1042');
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      cc: ['bo@example.com'],
      bcc: ['cy@example.com'],
      replyTo: ['Support <help@acme.test>'],
      headers: { 'X-Entity-Ref-ID': 'inv-1042' },
      subject: 'Your invoice',
      html: '<p>Attached. <img src="cid:logo"></p>',
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64') },
        { filename: 'logo.png', path: `${filesUrl}/logo.png`, contentId: 'logo' },
      ],
    });
    expect(sent.status).toBe(202);
    const done = await until(api, sent.body.id, ['sent']);
    expect(done.error).toBeNull();
    const [email] = h.resend.state.emails;
    expect(email).toMatchObject({
      to: ['ada@example.com'],
      cc: ['bo@example.com'],
      bcc: ['cy@example.com'],
      replyTo: ['Support <help@acme.test>'],
      headers: { 'X-Entity-Ref-ID': 'inv-1042' },
      idempotencyKey: sent.body.id,
    });
    expect(email!.attachments).toEqual([
      { filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
      { filename: 'logo.png', content: LOGO, contentType: 'image/png', contentId: 'logo' },
    ]);
  });

  it('drops a suppressed cc or bcc, names it in the status history, and still sends to the rest', async () => {
    const { api, orgId } = await h.liveOrg();
    await h.deps.db.suppression.createMany({
      data: [
        { orgId, recipient: 'gone@example.com', reason: 'bounced' },
        { orgId, recipient: 'quit@example.com', reason: 'unsubscribed' },
      ],
    });
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      cc: ['gone@example.com', 'bo@example.com'],
      bcc: ['quit@example.com'],
      subject: 'Hi',
      text: 'x',
    });
    const done = await until(api, sent.body.id, ['sent']);
    expect(h.resend.state.emails[0]).toMatchObject({ to: ['ada@example.com'], cc: ['bo@example.com'] });
    expect(h.resend.state.emails[0]!.bcc).toBeUndefined();
    const note = done.events.find((e: { error: { code: string } | null }) => e.error?.code === 'SUPPRESSED');
    expect(note).toMatchObject({ status: 'sending', error: { code: 'SUPPRESSED', message: expect.stringContaining('cc gone@example.com, bcc quit@example.com') } });
    // the message itself is not failed, and still lists what was asked for
    expect(done).toMatchObject({ status: 'sent', error: null, cc: ['gone@example.com', 'bo@example.com'] });
  });

  it('fails a path that answers 404 with ATTACHMENT_UNAVAILABLE at once, without calling Resend', async () => {
    const { api } = await h.liveOrg();
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      subject: 'Hi',
      text: 'x',
      attachments: [{ filename: 'gone.pdf', path: `${filesUrl}/gone.pdf` }],
    });
    const failed = await until(api, sent.body.id, ['failed']);
    expect(failed.error).toEqual({ code: 'ATTACHMENT_UNAVAILABLE', message: 'attachments.0 (gone.pdf) could not be fetched: HTTP 404' });
    expect(failed.attempts).toBe(1);
    expect(h.resend.requests).toHaveLength(0);
  });

  it('retries a path that answers 503, and sends once it answers', async () => {
    const { api } = await h.liveOrg();
    flakyStatuses = [503, 502];
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      subject: 'Hi',
      text: 'x',
      attachments: [{ filename: 'f.png', path: `${filesUrl}/flaky` }],
    });
    const done = await until(api, sent.body.id, ['sent']);
    expect(done).toMatchObject({ attempts: 3, error: null });
    expect(h.resend.state.emails).toHaveLength(1);
    expect(h.resend.state.emails[0]!.attachments![0]!.content).toEqual(LOGO);
  });
});

describe('through Telnyx (live key)', () => {
  it('sends mediaUrls as an MMS (media_urls)', async () => {
    const { api } = await h.liveOrg();
    const sent = await api.post('/v1/messages', { channelType: 'sms', to: '+14155550123', body: 'Your cat', mediaUrls: ['https://example.com/cat.png'] });
    await until(api, sent.body.id, ['sent']);
    expect(h.telnyx.state.messages).toEqual([expect.objectContaining({ to: '+14155550123', text: 'Your cat', mediaUrls: ['https://example.com/cat.png'] })]);
    expect(fileRequests).not.toContain('/cat.png'); // Telnyx fetches media itself
  });
});

describe('through the sandbox (test key)', () => {
  it('keeps recipients, headers and attachments, and reaches delivered', async () => {
    const { api } = await h.testOrg();
    const before = fileRequests.length;
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      cc: ['bo@example.com'],
      headers: { 'X-Test': '1' },
      subject: 'Hi',
      text: 'x',
      attachments: [
        { filename: 'a.txt', content: Buffer.from('hello').toString('base64') },
        { filename: 'logo.png', path: `${filesUrl}/logo.png` },
      ],
    });
    const done = await until(api, sent.body.id, ['delivered']);
    expect(done).toMatchObject({ provider: 'sandbox', cc: ['bo@example.com'], headers: { 'X-Test': '1' } });
    expect(done.attachments.map((a: { filename: string }) => a.filename)).toEqual(['a.txt', 'logo.png']);
    expect(fileRequests.length).toBe(before + 1); // the path was fetched, as a real send would
    expect(h.resend.requests).toHaveLength(0);
  });
});

describe('attachment bytes', () => {
  const storedBytes = (orgId: string) => h.deps.db.attachmentContent.count({ where: { orgId } });
  const inline = { filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 invoice').toString('base64') };

  it('are removed once the message is sent, and once it has failed', async () => {
    const { api, orgId } = await h.liveOrg();
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x', attachments: [inline] });
    expect(sent.status).toBe(202);
    expect(await storedBytes(orgId)).toBe(1);
    await until(api, sent.body.id, ['sent']);
    expect(await waitFor(async () => ((await storedBytes(orgId)) === 0 ? true : null), 10_000, "the sent message's bytes to be removed")).toBe(true);

    // the inline file is stored, the fetched one fails for good: the message fails, its stored bytes go
    const failing = await api.post('/v1/messages', {
      channelType: 'email',
      to: 'ada@example.com',
      subject: 'Hi',
      text: 'x',
      attachments: [inline, { filename: 'gone.pdf', path: `${filesUrl}/gone.pdf` }],
    });
    expect(await storedBytes(orgId)).toBe(1);
    await until(api, failing.body.id, ['failed']);
    expect(await waitFor(async () => ((await storedBytes(orgId)) === 0 ? true : null), 10_000, "the failed message's bytes to be removed")).toBe(true);
  });

  it('of a sandbox message stay for the sandbox inbox, and the sweep removes them after the retention', async () => {
    const { api, orgId } = await h.testOrg();
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x', attachments: [inline] });
    await until(api, sent.body.id, ['delivered']);
    expect(await removeUnneededAttachments(h.deps)).toBeGreaterThanOrEqual(0);
    expect(await storedBytes(orgId)).toBe(1);
    const later = new Date(Date.now() + SANDBOX_ATTACHMENT_RETENTION_MS + 60_000);
    await removeUnneededAttachments({ db: h.deps.db, now: () => later });
    expect(await storedBytes(orgId)).toBe(0);
  });

  it('of a canceled message are removed by the sweep', async () => {
    const { api, orgId } = await h.liveOrg();
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'x', scheduledAt, attachments: [inline] });
    expect(await storedBytes(orgId)).toBe(1);
    // a scheduled message still needs them, however old they are
    const muchLater = new Date(Date.now() + 2 * 3_600_000);
    await removeUnneededAttachments({ db: h.deps.db, now: () => muchLater });
    expect(await storedBytes(orgId)).toBe(1);
    expect((await api.post(`/v1/messages/${sent.body.id}/cancel`)).status).toBe(200);
    await removeUnneededAttachments({ db: h.deps.db, now: () => muchLater });
    expect(await storedBytes(orgId)).toBe(0);
  });
});
