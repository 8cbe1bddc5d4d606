import type { Config } from '@tidings/config';
import { createCircuitBreaker, type CircuitBreaker } from './circuit-breaker.ts';
import { createSnsCertificateCache, type SnsCertificateCache } from './callbacks/sns-certificates.ts';
import type { DomainProvider } from './domain-provider.ts';
import type { NumberProvider } from './number-provider.ts';
import { sendsToSandbox } from './key-mode.ts';
import type { EmailProvider, EmailProviderName, KeyMode, ProviderName, SmsProvider, SmsProviderName } from './provider.types.ts';
import { createResendDomainProvider } from './resend-domain.provider.ts';
import { createResendProvider } from './resend.provider.ts';
import { createSandboxDomainProvider } from './sandbox-domain.provider.ts';
import { createSandboxNumberProvider } from './sandbox-number.provider.ts';
import { createSandboxProvider } from './sandbox.provider.ts';
import { createSesDomainProvider } from './ses-domain.provider.ts';
import { createSesProvider } from './ses.provider.ts';
import { createSmtpProvider } from './smtp.provider.ts';
import { createTelnyxNumberProvider } from './telnyx-number.provider.ts';
import { createTelnyxProvider } from './telnyx.provider.ts';
import { createTwilioNumberProvider } from './twilio-number.provider.ts';
import { createTwilioProvider } from './twilio.provider.ts';

export type ChannelType = 'email' | 'sms';

/** Which provider holds a domain or number: the key's mode for a new one, the stored name for an existing one. */
export type ProviderChoice = { mode: KeyMode } | { name: string };

/**
 * Every provider of a process, built once from configuration and passed in with the other dependencies. This is the
 * one place that decides test against live: a `test` key's message, domain or number always gets the sandbox.
 */
export type Providers = {
  /** The provider a new message is recorded with: the sandbox for a test key, else the first of the channel's list. */
  plannedFor(mode: KeyMode, channelType: ChannelType): ProviderName;
  /**
   * The providers to try for a message recorded with `recorded`, in order: only the sandbox for a sandbox message;
   * else the channel's list, without the providers whose circuit is open while one with a closed circuit remains.
   */
  sendingOrder(channelType: ChannelType, recorded: string): ProviderName[];
  email(name: string): EmailProvider | undefined;
  sms(name: string): SmsProvider | undefined;
  domains(choice: ProviderChoice): DomainProvider;
  numbers(choice: ProviderChoice): NumberProvider;
  circuit: CircuitBreaker;
  /** SES's SNS signing certificates, fetched for its callbacks: a bounded cache (SNS_CERTIFICATE_CACHE_SIZE). */
  snsCertificates: SnsCertificateCache;
  /** Closes pooled connections (SMTP). */
  close(): void;
};

/** What tests may put in place of the configured providers. */
export type ProviderOverrides = Partial<{
  email: Partial<Record<EmailProviderName, EmailProvider>>;
  sms: Partial<Record<SmsProviderName, SmsProvider>>;
  domains: (choice: ProviderChoice) => DomainProvider;
  numbers: (choice: ProviderChoice) => NumberProvider;
}>;

/**
 * Builds the providers from configuration: the sandbox always, each real one when it is listed in EMAIL_PROVIDERS /
 * SMS_PROVIDERS (its settings are then required by loadConfig). Domains are provisioned at the first of
 * EMAIL_PROVIDERS that can (Resend, SES), numbers at the first of SMS_PROVIDERS that can (Telnyx, Twilio). Base URLs
 * and endpoints let tests point the real SDKs at loopback fakes.
 * @example const providers = buildProviders(config); const [first] = providers.sendingOrder('email', message.provider);
 */
export function buildProviders(config: Config, overrides: ProviderOverrides = {}): Providers {
  const timeoutMs = config.sendWorker.providerTimeoutMs;
  const lists = config.providerLists;
  const sandbox = createSandboxProvider();
  const smtp = lists.email.includes('smtp') && config.smtp.url ? createSmtpProvider({ url: config.smtp.url, poolSize: config.smtp.poolSize, timeoutMs }) : undefined;
  const { resend, telnyx, ses, twilio } = config;
  const email: Partial<Record<EmailProviderName, EmailProvider>> = {
    sandbox,
    resend: resend.apiKey ? createResendProvider({ apiKey: resend.apiKey, baseUrl: resend.baseUrl, timeoutMs }) : undefined,
    smtp,
    ses:
      ses.region && ses.accessKeyId && ses.secretAccessKey
        ? createSesProvider({
            region: ses.region,
            accessKeyId: ses.accessKeyId,
            secretAccessKey: ses.secretAccessKey,
            endpoint: ses.endpoint,
            configurationSet: ses.configurationSet,
            timeoutMs,
          })
        : undefined,
    ...overrides.email,
  };
  const sms: Partial<Record<SmsProviderName, SmsProvider>> = {
    sandbox,
    telnyx: telnyx.apiKey ? createTelnyxProvider({ apiKey: telnyx.apiKey, baseUrl: telnyx.baseUrl, timeoutMs }) : undefined,
    twilio:
      twilio.accountSid && twilio.authToken
        ? createTwilioProvider({
            accountSid: twilio.accountSid,
            authToken: twilio.authToken,
            baseUrl: twilio.baseUrl,
            statusCallbackUrl: twilioCallbackUrl(config),
            timeoutMs,
          })
        : undefined,
    ...overrides.sms,
  };
  const circuit = createCircuitBreaker(config.circuit);

  const domainProviders: Partial<Record<string, DomainProvider>> = {
    resend: resend.apiKey ? createResendDomainProvider({ apiKey: resend.apiKey, baseUrl: resend.baseUrl }) : undefined,
    ses:
      ses.region && ses.accessKeyId && ses.secretAccessKey
        ? createSesDomainProvider({
            region: ses.region,
            accessKeyId: ses.accessKeyId,
            secretAccessKey: ses.secretAccessKey,
            endpoint: ses.endpoint,
            configurationSet: ses.configurationSet,
          })
        : undefined,
  };
  const numberProviders: Partial<Record<string, NumberProvider>> = {
    telnyx: telnyx.apiKey ? createTelnyxNumberProvider({ apiKey: telnyx.apiKey, baseUrl: telnyx.baseUrl, messagingProfileId: telnyx.messagingProfileId }) : undefined,
    twilio:
      twilio.accountSid && twilio.authToken
        ? createTwilioNumberProvider({ accountSid: twilio.accountSid, authToken: twilio.authToken, baseUrl: twilio.baseUrl, smsUrl: twilioCallbackUrl(config) })
        : undefined,
  };
  // A new domain or number goes to the first provider of the channel's list that provisions them (a live key's);
  // an existing one to the provider that holds it. The sandbox when neither is configured.
  const holderOf = <T>(available: Partial<Record<string, T>>, list: string[], choice: ProviderChoice): T | undefined => {
    if ('name' in choice) return available[choice.name];
    if (sendsToSandbox(choice.mode)) return undefined;
    const name = list.find((n) => available[n]);
    return name ? available[name] : undefined;
  };
  const sandboxDomains = createSandboxDomainProvider();
  const sandboxNumbers = createSandboxNumberProvider();
  // a test key's numbers come from the fictional range only (a live key without a number provider gets any)
  const fictionalNumbers = createSandboxNumberProvider({ fictionalOnly: true });
  const domains = overrides.domains ?? ((choice: ProviderChoice) => holderOf(domainProviders, lists.email, choice) ?? sandboxDomains);
  const numbers =
    overrides.numbers ??
    ((choice: ProviderChoice) => holderOf(numberProviders, lists.sms, choice) ?? ('mode' in choice && sendsToSandbox(choice.mode) ? fictionalNumbers : sandboxNumbers));

  return {
    plannedFor: (mode, channelType) => (sendsToSandbox(mode) ? 'sandbox' : lists[channelType][0]!),
    sendingOrder(channelType, recorded) {
      if (recorded === 'sandbox') return ['sandbox'];
      const list: ProviderName[] = lists[channelType];
      const available = list.filter((name) => circuit.state(name) !== 'open');
      // every circuit open: try them all rather than fail a message no provider was asked about
      return available.length > 0 ? available : list;
    },
    email: (name) => email[name as EmailProviderName],
    sms: (name) => sms[name as SmsProviderName],
    domains,
    numbers,
    circuit,
    snsCertificates: createSnsCertificateCache(SNS_CERTIFICATE_CACHE_SIZE),
    close: () => smtp?.close(),
  };
}

/** SNS certificates kept at once: SNS uses one per region and rotation, so a few serve every genuine message. */
export const SNS_CERTIFICATE_CACHE_SIZE = 20;

/** The URL Twilio posts status callbacks to, and signs: our public provider-events URL. */
export function twilioCallbackUrl(config: Pick<Config, 'publicApiUrl'>): string {
  return `${config.publicApiUrl.replace(/\/$/, '')}/v1/provider-events/twilio`;
}
