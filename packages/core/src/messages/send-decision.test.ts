import { ProviderError, RECIPIENT_STOPPED } from '@tidings/providers';
import { FetchFailedError } from '@tidings/webhooks';
import { SendDeferred } from '../pace/deferral.ts';
import { AttachmentUnavailableError } from './outgoing-message.ts';
import { decideSend, sandboxOutcomeJobId, sandboxOutcomeMessageId, type ProviderAnswer } from './send-decision.ts';
import { SendAttemptFailed } from './send-through-providers.ts';

// The decision of a send attempt, without a database: what the providers answered in, what to record out.
const settings = { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60_000, sandboxOutcomeDelayMs: 500 };
const now = new Date('2026-12-07T06:00:00.000Z');
const claimed = (attempts: number) => ({ id: 'msg_1', attempts });
const threw = (error: unknown): ProviderAnswer => ({ kind: 'threw', error });
const decide = (answer: ProviderAnswer, attempts = 1) => decideSend(claimed(attempts), answer, settings, { now, random: () => 0 });

const unavailable = new ProviderError('resend', 'Resend answered 503', { isRetryable: true, status: 503 });
const refused = new ProviderError('resend', 'Resend answered 422: invalid recipient', { isRetryable: false, status: 422, reason: 'invalid_recipient' });

describe('decideSend', () => {
  it('a provider took it: sent, with no follow-up but the sandbox outcome for the sandbox', () => {
    expect(decide({ kind: 'sent', provider: 'resend', providerMessageId: 're_1' })).toEqual({ kind: 'sent', provider: 'resend', providerMessageId: 're_1', followUps: [] });
    expect(decide({ kind: 'sent', provider: 'sandbox', providerMessageId: 'sbx_1' })).toEqual({
      kind: 'sent',
      provider: 'sandbox',
      providerMessageId: 'sbx_1',
      followUps: [{ queue: 'maintenance', jobId: 'sandbox-outcome.msg_1', runAt: new Date('2026-12-07T06:00:00.500Z') }],
    });
    expect(sandboxOutcomeMessageId(sandboxOutcomeJobId('msg_1'))).toBe('msg_1');
    expect(sandboxOutcomeMessageId('msg_1')).toBeNull();
  });

  it("waiting for the provider's pace is a deferral: no attempt spent, no failure", () => {
    const deferral = new SendDeferred(new Date('2026-12-07T06:00:02.000Z'), 'provider_rate_limit', 'resend');
    expect(decide(threw(deferral), 3)).toEqual({ kind: 'deferred', deferral });
  });

  it('every provider failed for now: a retry after backoff, until the last attempt fails', () => {
    expect(decide(threw(new SendAttemptFailed('resend', unavailable, true)), 1)).toEqual({
      kind: 'retry',
      provider: 'resend',
      error: { code: 'PROVIDER_UNAVAILABLE', message: 'Resend answered 503' },
      recordError: false,
      delayMs: 500,
      at: new Date('2026-12-07T06:00:00.500Z'),
    });
    expect(decide(threw(new SendAttemptFailed('resend', unavailable, true)), 2)).toMatchObject({ kind: 'retry', delayMs: 1000 });
    expect(decide(threw(new SendAttemptFailed('resend', unavailable, true)), 3)).toEqual({
      kind: 'failed',
      provider: 'resend',
      error: { code: 'PROVIDER_UNAVAILABLE', message: 'Resend answered 503' },
      why: 'lastAttempt',
    });
  });

  it('a refusal fails at once, whatever attempt it is', () => {
    expect(decide(threw(new SendAttemptFailed('resend', refused, false)), 1)).toEqual({
      kind: 'failed',
      provider: 'resend',
      error: { code: 'INVALID_RECIPIENT', message: 'Resend answered 422: invalid recipient' },
      why: 'refused',
    });
  });

  it('a recipient who texted STOP: suppressed and failed, not retried', () => {
    const stopped = new ProviderError('telnyx', 'Telnyx answered 40300', { isRetryable: false, reason: RECIPIENT_STOPPED });
    expect(decide(threw(new SendAttemptFailed('telnyx', stopped, false)))).toEqual({
      kind: 'recipientStopped',
      provider: 'telnyx',
      error: { code: 'RECIPIENT_STOPPED', message: 'Telnyx answered 40300' },
    });
  });

  it('an attachment that could not be read is reported as such, retried while transient, and recorded as no provider did', () => {
    expect(decide(threw(new FetchFailedError('https://files.example.com/a.pdf answered 503', true)))).toEqual({
      kind: 'retry',
      provider: undefined,
      error: { code: 'ATTACHMENT_UNAVAILABLE', message: 'An attachment could not be fetched: https://files.example.com/a.pdf answered 503' },
      recordError: true,
      delayMs: 500,
      at: new Date('2026-12-07T06:00:00.500Z'),
    });
    expect(decide(threw(new AttachmentUnavailableError('attachments.0 (a.pdf): its stored content is missing', false)))).toEqual({
      kind: 'failed',
      provider: undefined,
      error: { code: 'ATTACHMENT_UNAVAILABLE', message: 'attachments.0 (a.pdf): its stored content is missing' },
      why: 'refused',
    });
  });

  it('our own failure (the database, a bug) is thrown for the job to run again', () => {
    const ours = new Error('Connection terminated unexpectedly');
    expect(decide(threw(ours), 3)).toEqual({ kind: 'ours', error: ours });
  });
});
