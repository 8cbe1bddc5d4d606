import type { Config } from '@tidings/config';
import type { DomainProvider } from './domain-provider.ts';
import type { NumberProvider } from './number-provider.ts';
import { createResendDomainProvider } from './resend-domain.provider.ts';
import { createSandboxDomainProvider } from './sandbox-domain.provider.ts';
import { createSandboxNumberProvider } from './sandbox-number.provider.ts';
import { createTelnyxNumberProvider } from './telnyx-number.provider.ts';

export type KeyMode = 'live' | 'test';

/**
 * The domain provider for a request: the sandbox for `test` keys and when Resend is not configured, Resend otherwise.
 * `name` picks the provider that holds an existing domain (a Resend domain is deleted at Resend whatever the key).
 * @example const provider = domainProviderFor(deps.config, { mode: principal.mode });
 */
export function domainProviderFor(config: Pick<Config, 'resend'>, choice: { mode?: KeyMode; name?: string }): DomainProvider {
  const apiKey = config.resend.apiKey;
  const wantsResend = choice.name ? choice.name === 'resend' : choice.mode === 'live';
  if (wantsResend && apiKey) return createResendDomainProvider({ apiKey, baseUrl: config.resend.baseUrl });
  return createSandboxDomainProvider();
}

/**
 * The number provider for a request: the sandbox for `test` keys and when Telnyx is not configured, Telnyx otherwise.
 * @example const provider = numberProviderFor(deps.config, { mode: principal.mode });
 */
export function numberProviderFor(config: Pick<Config, 'telnyx'>, choice: { mode?: KeyMode; name?: string }): NumberProvider {
  const apiKey = config.telnyx.apiKey;
  const wantsTelnyx = choice.name ? choice.name === 'telnyx' : choice.mode === 'live';
  if (wantsTelnyx && apiKey) return createTelnyxNumberProvider({ apiKey, baseUrl: config.telnyx.baseUrl });
  return createSandboxNumberProvider();
}
