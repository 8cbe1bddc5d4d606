import { sampleValue } from '@tidings/testing';
import { messageOnceIn, startPipeline, waitFor } from './harness.ts';

// Resend first, SMTP second: a retryable Resend failure hands the same attempt to SMTP; two in a row open Resend's
// circuit for 1.5 s, during which it is not called at all.
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // generous timeout and lock: loading nodemailer and the first SMTP connection on a busy machine must neither count as
  // a failure nor let the job be taken over as stalled (no crash is tested here)
  h = await startPipeline({
    EMAIL_PROVIDERS: 'resend,smtp',
    PROVIDER_CIRCUIT_FAILURES: '2',
    PROVIDER_CIRCUIT_COOLDOWN_MS: '1500',
    PROVIDER_TIMEOUT_MS: '15000',
    SEND_WORKER_LOCK_DURATION_MS: '15000',
  });
  await h.startWorker();
});
afterAll(() => h.close());
beforeEach(() => {
  h.resend.reset();
  h.resend.state.emails.length = 0;
  h.smtp.received.length = 0;
});

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];
type Event = { status: string; provider: string | null; error: { code: string } | null };
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 10_000);
const steps = (m: { events: Event[] }) => m.events.map((e) => [e.status, e.provider, e.error?.code ?? null]);
const resendCalls = () => h.resend.requests.filter((r) => r.path === '/emails').length;
const send = async (api: Api, to: string) => (await api.post('/v1/messages', { channelType: 'email', to, subject: 'Hi', text: 'Hello' })).body;
const metric = async (name: string, labels: Record<string, string>) => sampleValue(await h.deps.metrics.registry.metrics(), name, labels) ?? 0;

describe('email failover from Resend to SMTP', () => {
  it('sends through SMTP in the same attempt when Resend answers 503, then skips Resend while its circuit is open', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(2, { kind: 'status', status: 503, body: { statusCode: 503, name: 'service_unavailable', message: 'down' } }, '/emails');
    const first = await send(api, 'first@example.com');
    expect(first.provider).toBe('resend'); // planned: the first of EMAIL_PROVIDERS

    const sent = await until(api, first.id, ['sent']);
    expect(sent).toMatchObject({ provider: 'smtp', attempts: 1, error: null, providerMessageId: `<${first.id}@acme.test>` });
    expect(steps(sent)).toEqual([
      ['queued', null, null],
      ['sending', null, null],
      ['sending', 'resend', 'PROVIDER_UNAVAILABLE'],
      ['sending', 'smtp', null], // the claim, written before the SMTP call
      ['sent', 'smtp', null],
    ]);
    const [mail] = h.smtp.received;
    expect(mail!.parsed).toMatchObject({ subject: 'Hi', text: 'Hello\n', messageId: `<${first.id}@acme.test>` });
    expect(mail!.envelope).toEqual({ from: 'hello@acme.test', to: ['first@example.com'] });
    expect(mail!.parsed.headers.get('x-tidings-message-id')).toBe(first.id);

    // the second 503 in a row opens Resend's circuit
    const second = await send(api, 'second@example.com');
    expect((await until(api, second.id, ['sent'])).provider).toBe('smtp');
    expect(resendCalls()).toBe(2);
    expect(h.deps.providers.circuit.state('resend')).toBe('open');
    expect(await metric('tidings_provider_circuit_state', { provider: 'resend' })).toBe(1);

    // while it cools down Resend is not asked at all
    const third = await send(api, 'third@example.com');
    const skipped = await until(api, third.id, ['sent']);
    expect(skipped.provider).toBe('smtp');
    expect(steps(skipped).map(([, provider]) => provider)).not.toContain('resend');
    expect(resendCalls()).toBe(2);

    // after the cool-down it is tried again, and a success closes the circuit
    await waitFor(async () => h.deps.providers.circuit.state('resend') === 'half_open', 5000, "Resend's cool-down to end");
    const fourth = await send(api, 'fourth@example.com');
    expect((await until(api, fourth.id, ['sent'])).provider).toBe('resend');
    expect(resendCalls()).toBe(3);
    expect(h.deps.providers.circuit.state('resend')).toBe('closed');
    expect(h.smtp.received.map((m) => m.envelope.to[0])).toEqual(['first@example.com', 'second@example.com', 'third@example.com']);

    expect(await metric('tidings_provider_calls_total', { provider: 'resend', channel: 'email', outcome: 'retryable_error' })).toBeGreaterThanOrEqual(2);
    expect(await metric('tidings_provider_calls_total', { provider: 'smtp', channel: 'email', outcome: 'sent' })).toBeGreaterThanOrEqual(3);
    expect(await metric('tidings_provider_circuit_state', { provider: 'resend' })).toBe(0);
  });

  it('fails the message on a 422 from Resend without trying SMTP', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 422, body: { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' } }, '/emails');
    const message = await send(api, 'refused@example.com');
    const failed = await until(api, message.id, ['failed']);
    expect(failed).toMatchObject({ provider: 'resend', attempts: 1, error: { code: 'PROVIDER_REJECTED' } });
    expect(steps(failed).at(-1)).toEqual(['failed', 'resend', 'PROVIDER_REJECTED']);
    // failover happens inside the attempt that ended `failed`: had SMTP been tried, its mail would be here already
    expect(h.smtp.received).toHaveLength(0);
  });

  it('retries later when every provider fails, and the history names each one tried', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 500 }, '/emails');
    h.smtp.failNext(1, 451); // a 4xx: try again later
    const message = await send(api, 'later@example.com');
    const sent = await until(api, message.id, ['sent']);
    expect(sent.attempts).toBe(2);
    expect(steps(sent).slice(2)).toEqual([
      ['sending', 'resend', 'PROVIDER_UNAVAILABLE'],
      ['sending', 'smtp', null],
      ['sending', 'smtp', 'PROVIDER_UNAVAILABLE'],
      ['sent', 'resend', null],
    ]);
    expect(h.resend.state.emails.map((e) => e.idempotencyKey)).toEqual([message.id]);
  });

  it('fails for good on an SMTP 5xx when SMTP is the one answering', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 503 }, '/emails');
    h.smtp.failNext(1, 550);
    const message = await send(api, 'nobody@example.com');
    const failed = await until(api, message.id, ['failed']);
    expect(failed).toMatchObject({ provider: 'smtp', attempts: 1, error: { code: 'PROVIDER_REJECTED', message: expect.stringContaining('550') } });
    expect(h.smtp.received).toHaveLength(0);
  });

  it('never sends a test key through Resend or SMTP', async () => {
    const { api } = await h.testOrg();
    const message = await send(api, 'sandboxed@example.com');
    expect((await until(api, message.id, ['delivered'])).provider).toBe('sandbox');
    expect(resendCalls()).toBe(0);
    expect(h.smtp.received).toHaveLength(0);
  });

  it('hands SMTP the whole email after a failover: cc, bcc, reply-to, headers and the attachment, parsed by the server', async () => {
    const { api } = await h.liveOrg();
    h.resend.failNext(1, { kind: 'status', status: 503 }, '/emails');
    const pdf = Buffer.from('%PDF-1.4 tidings test');
    const message = (
      await api.post('/v1/messages', {
        channelType: 'email',
        to: 'ada@example.com',
        cc: ['cc@example.com'],
        bcc: ['bcc@example.com'],
        replyTo: ['replies@acme.test'],
        headers: { 'X-Campaign': 'autumn' },
        subject: 'Invoice',
        text: 'Attached.',
        attachments: [{ filename: 'invoice.pdf', content: pdf.toString('base64') }],
      })
    ).body;
    expect((await until(api, message.id, ['sent'])).provider).toBe('smtp');
    const mail = h.smtp.received.find((m) => m.messageId === `<${message.id}@acme.test>`)!;
    expect(mail.envelope.to.sort()).toEqual(['ada@example.com', 'bcc@example.com', 'cc@example.com']);
    expect(mail.parsed.cc).toMatchObject({ text: 'cc@example.com' });
    expect(mail.parsed.headers.has('bcc')).toBe(false);
    expect(mail.parsed.replyTo).toMatchObject({ text: 'replies@acme.test' });
    expect(mail.parsed.headers.get('x-campaign')).toBe('autumn');
    expect(mail.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([['invoice.pdf', 'application/pdf', pdf.toString()]]);
  });
});
