import { callNumberProvider, numberProviderError, type NumberProviderFailures } from './number-provider-error.ts';

// Telnyx's and Twilio's number adapters read their failures through this one helper: the same status means the same
// thing from either (they had a copy each).
const failures = (provider: 'telnyx' | 'twilio'): NumberProviderFailures => ({
  provider,
  label: provider === 'telnyx' ? 'Telnyx' : 'Twilio',
  failureOf: (error) => error as { status?: number; code?: number },
});

describe('numberProviderError', () => {
  it.each(['telnyx', 'twilio'] as const)('%s: no answer or a retryable status is the provider unavailable, to try again', (provider) => {
    const silent = numberProviderError(failures(provider), 'number search', {});
    expect(silent).toMatchObject({ isRetryable: true, reason: 'provider_unavailable', status: undefined });
    expect(silent.message).toMatch(/number search failed \(no response\)$/);
    expect(numberProviderError(failures(provider), 'number search', { status: 503 })).toMatchObject({ isRetryable: true, reason: 'provider_unavailable', status: 503 });
  });

  it("another 4xx is a refusal; for an order, the number is unavailable unless it is our credentials' 401/403", () => {
    const twilio = failures('twilio');
    expect(numberProviderError(twilio, 'number search', { status: 400, code: 21452 })).toMatchObject({
      isRetryable: false,
      reason: 'provider_rejected',
      message: 'Twilio number search refused (400, error 21452)',
    });
    expect(numberProviderError(twilio, 'number purchase', { status: 400 }, { unavailableOn4xx: true })).toMatchObject({ reason: 'number_unavailable' });
    expect(numberProviderError(twilio, 'number purchase', { status: 401 }, { unavailableOn4xx: true })).toMatchObject({ reason: 'provider_rejected' });
    expect(numberProviderError(failures('telnyx'), 'number order', { status: 422 }).message).toBe('Telnyx number order refused (422)');
  });

  it('callNumberProvider passes an answer through and throws a failure as the ProviderError', async () => {
    await expect(callNumberProvider(failures('telnyx'), 'number search', async () => 'found')).resolves.toBe('found');
    await expect(
      callNumberProvider(failures('telnyx'), 'number search', async () => {
        throw { status: 500 };
      }),
    ).rejects.toMatchObject({ provider: 'telnyx', isRetryable: true });
  });
});
