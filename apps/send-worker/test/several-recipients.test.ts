import { messageOnceIn, startPipeline } from './harness.ts';

// `to` as a list through SMTP (the provider whose bytes Tidings composes) and the sandbox: one message to every To
// recipient, suppressed ones dropped, and message.getSource giving exactly the bytes the SMTP server received.
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // a generous timeout and lock: loading nodemailer on a busy machine must not count as a failure
  h = await startPipeline({ EMAIL_PROVIDERS: 'smtp', PROVIDER_TIMEOUT_MS: '15000', SEND_WORKER_LOCK_DURATION_MS: '15000' });
  await h.startWorker();
});
afterAll(() => h.close());
beforeEach(() => {
  h.smtp.received.length = 0;
});

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 20_000);

describe('an email to several To recipients', () => {
  it('goes as one SMTP mail to all of them, and its source is byte for byte what the server received', async () => {
    const { api } = await h.liveOrg();
    const sent = await api.post('/v1/messages', {
      channelType: 'email',
      to: ['ada@example.com', 'Grace@Example.com'],
      cc: ['bo@example.com'],
      bcc: ['cy@example.com'],
      headers: { 'X-Entity-Ref-ID': 'inv-7' },
      subject: 'Together',
      html: '<p>Hi both</p>',
      text: 'Hi both',
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ to: 'ada@example.com', toAll: ['ada@example.com', 'grace@example.com'] });
    await until(api, sent.body.id, ['sent']);

    const [mail] = h.smtp.received;
    expect(h.smtp.received).toHaveLength(1);
    expect(mail!.envelope.to).toEqual(['ada@example.com', 'grace@example.com', 'bo@example.com', 'cy@example.com']);
    expect(mail!.parsed.to).toMatchObject({ value: [{ address: 'ada@example.com' }, { address: 'grace@example.com' }] });
    const source = await api.get(`/v1/messages/${sent.body.id}/source`);
    expect(source.status).toBe(200);
    expect(source.headers.get('content-type')).toBe('message/rfc822');
    expect(source.body).toBe(mail!.raw.toString('utf8'));
    expect(source.body).toContain(`Message-ID: <${sent.body.id}@acme.test>`);
    expect(source.body).toContain('X-Entity-Ref-ID: inv-7');
    expect(source.body).not.toMatch(/^Bcc:/m);
  });

  it('drops a suppressed To recipient and names it in the history; with every To recipient suppressed the message fails SUPPRESSED', async () => {
    const { api } = await h.liveOrg();
    expect((await api.post('/v1/suppressions', { channelType: 'email', address: 'ada@example.com' })).status).toBe(201);
    const email = (to: string[]) => api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', text: 'Hello' });

    const partly = (await email(['ada@example.com', 'grace@example.com'])).body;
    const sent = await until(api, partly.id, ['sent']);
    expect(h.smtp.received.map((m) => m.envelope.to)).toEqual([['grace@example.com']]);
    expect(sent.events.map((e: { error: { message: string } | null }) => e.error?.message).filter(Boolean)).toEqual([
      'Not sent to suppressed recipients (bounced, complained or unsubscribed): to ada@example.com',
    ]);
    expect((await api.get(`/v1/messages/${partly.id}/source`)).body).toMatch(/^To: grace@example.com\r$/m);

    expect((await api.post('/v1/suppressions', { channelType: 'email', address: 'grace@example.com' })).status).toBe(201);
    const wholly = (await email(['ada@example.com', 'grace@example.com'])).body;
    expect(await until(api, wholly.id, ['failed'])).toMatchObject({ error: { code: 'SUPPRESSED' } });
    expect(h.smtp.received).toHaveLength(1);
  });

  it('sends a Cc with its display name, and drops a named Cc whose address is suppressed', async () => {
    const { api } = await h.liveOrg();
    expect((await api.post('/v1/suppressions', { channelType: 'email', address: 'bo@example.com' })).status).toBe(201);
    const cc = ['"Ann Example" <ann@example.com>', 'Bo <BO@example.com>'];
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', cc, subject: 'Hi', text: 'Hello' });
    expect(sent.status).toBe(202);
    expect(sent.body.cc).toEqual(cc);
    const done = await until(api, sent.body.id, ['sent']);
    expect(done.events.map((e: { error: { message: string } | null }) => e.error?.message).filter(Boolean)).toEqual([
      'Not sent to suppressed recipients (bounced, complained or unsubscribed): cc bo@example.com',
    ]);
    const [mail] = h.smtp.received;
    expect(mail!.envelope.to).toEqual(['ada@example.com', 'ann@example.com']);
    expect(mail!.parsed.cc).toMatchObject({ value: [{ address: 'ann@example.com', name: 'Ann Example' }] });
    expect((await api.get(`/v1/messages/${sent.body.id}/source`)).body).toBe(mail!.raw.toString('utf8'));
  });

  it('through the sandbox: the outcome follows the first To recipient, and the source is there as well', async () => {
    const { api } = await h.testOrg();
    const logo = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 7, 7]);
    const sent = (
      await api.post('/v1/messages', {
        channelType: 'email',
        to: ['bounce@example.com', 'ada@example.com'],
        subject: 'Hi',
        html: '<p>Hello <img src="cid:logo"></p>',
        attachments: [{ filename: 'logo.png', content: logo.toString('base64'), contentId: 'logo' }],
      })
    ).body;
    expect(sent.provider).toBe('sandbox');
    await until(api, sent.id, ['bounced']);
    // the bounce suppressed the first address since: the source still shows whom the send went to
    const source = await api.get(`/v1/messages/${sent.id}/source`);
    expect(source.status).toBe(200);
    expect(source.body).toMatch(/^To: bounce@example.com, ada@example.com\r$/m);
    // the sandbox keeps attachment bytes for its inbox: the inline image is in the source
    expect(source.body).toContain('Content-ID: <logo>');
    expect(source.body).toContain(logo.toString('base64'));
  });
});
