import type { Config } from '@tidings/config';
import type { Metrics } from '@tidings/runtime';
import {
  createResendProvider,
  createSandboxProvider,
  createTelnyxProvider,
  ProviderError,
  type EmailProvider,
  type ProviderName,
  type SmsProvider,
} from '@tidings/providers';

export type Providers = { email(name: string): EmailProvider; sms(name: string): SmsProvider };

/**
 * The providers this worker can send through, from configuration: the sandbox always, Resend and Telnyx when
 * their API keys are set (their base URLs let tests point the real SDKs at the loopback fakes).
 * @example const providers = buildProviders(config); await providers.email('resend').sendEmail(email);
 */
export function buildProviders(config: Config): Providers {
  const timeoutMs = config.sendWorker.providerTimeoutMs;
  const sandbox = createSandboxProvider();
  const resend = config.resend.apiKey ? createResendProvider({ apiKey: config.resend.apiKey, baseUrl: config.resend.baseUrl, timeoutMs }) : null;
  const telnyx = config.telnyx.apiKey ? createTelnyxProvider({ apiKey: config.telnyx.apiKey, baseUrl: config.telnyx.baseUrl, timeoutMs }) : null;
  const missing = (name: string) =>
    new ProviderError(name, `The message was accepted for ${name}, but this worker has no ${name} API key configured`, { isRetryable: false, reason: 'provider_not_configured' });
  return {
    email(name: string) {
      if (name === 'sandbox') return sandbox;
      if (name === 'resend' && resend) return resend;
      throw missing(name as ProviderName);
    },
    sms(name: string) {
      if (name === 'sandbox') return sandbox;
      if (name === 'telnyx' && telnyx) return telnyx;
      throw missing(name as ProviderName);
    },
  };
}

/**
 * The same providers with every send counted in `tidings_provider_calls_total` by provider and outcome: `sent`,
 * `permanent_error` (a ProviderError that is not retryable) or `retryable_error` (anything else), as the send
 * processor treats them. A provider this worker has no key for is never called, so it is not counted.
 * @example const providers = countProviderCalls(deps.metrics, buildProviders(deps.config));
 */
export function countProviderCalls(metrics: Pick<Metrics, 'providerCalls'>, providers: Providers): Providers {
  const counted = async <T>(provider: string, call: () => Promise<T>): Promise<T> => {
    try {
      const result = await call();
      metrics.providerCalls.inc({ provider, outcome: 'sent' });
      return result;
    } catch (error) {
      metrics.providerCalls.inc({ provider, outcome: error instanceof ProviderError && !error.isRetryable ? 'permanent_error' : 'retryable_error' });
      throw error;
    }
  };
  return {
    email(name: string) {
      const provider = providers.email(name);
      return { name: provider.name, sendEmail: (email) => counted(provider.name, () => provider.sendEmail(email)) };
    },
    sms(name: string) {
      const provider = providers.sms(name);
      return { name: provider.name, sendSms: (sms) => counted(provider.name, () => provider.sendSms(sms)) };
    },
  };
}
