import { Resend } from 'resend';
import { getDomain } from 'tldts';
import { dmarcRecord, type DomainProvider, type RequiredDnsRecord } from './domain-provider.ts';
import { isRetryableStatus, ProviderError } from './provider-error.ts';
import { REQUEST_TIMEOUT_MS } from './request-timeout.ts';

type ResendError = { message: string; statusCode: number | null; name: string };
type ResendRecord = { record: string; name: string; value: string; type: string; priority?: number };

/**
 * Resend gives names relative to the zone, the registrable domain ("send", "resend._domainkey"; for
 * `mail.example.com`: "send.mail"); we store them fully qualified.
 * @example qualifyName('send.mail', 'mail.example.com') // 'send.mail.example.com'
 */
export function qualifyName(name: string, domainName: string): string {
  const bare = name.replace(/\.$/, '').toLowerCase();
  if (bare === '' || bare === '@') return domainName;
  if (bare === domainName || bare.endsWith(`.${domainName}`)) return bare;
  const zone = getDomain(domainName) ?? domainName;
  const sub = domainName === zone ? '' : domainName.slice(0, -(zone.length + 1));
  return sub && (bare === sub || bare.endsWith(`.${sub}`)) ? `${bare}.${zone}` : `${bare}.${domainName}`;
}

/** Resend sometimes quotes TXT values; DNS answers come back without the quotes. */
const unquote = (value: string) => value.replace(/^"(.*)"$/, '$1');

function toRecord(record: ResendRecord, domainName: string): RequiredDnsRecord | null {
  const base = { name: qualifyName(record.name, domainName), value: unquote(record.value), required: true };
  if (record.record === 'SPF' && record.type === 'MX') return { ...base, purpose: 'returnPath', type: 'MX', priority: record.priority ?? 10 };
  if (record.record === 'SPF' && record.type === 'TXT') return { ...base, purpose: 'spf', type: 'TXT' };
  if (record.record === 'DKIM' && (record.type === 'TXT' || record.type === 'CNAME')) return { ...base, purpose: 'dkim', type: record.type };
  return null; // receiving and tracking records: we enable neither
}

/** A Resend error as a ProviderError; the message names the operation and status, never Resend's text or our key. */
function providerError(operation: string, error: ResendError): ProviderError {
  const status = error.statusCode ?? undefined;
  const isRetryable = status === undefined || isRetryableStatus(status);
  return new ProviderError('resend', `Resend ${operation} failed (${status ?? 'no response'})`, {
    isRetryable,
    status,
    reason: isRetryable ? 'provider_unavailable' : error.name === 'validation_error' ? 'invalid_domain' : 'provider_rejected',
  });
}

/**
 * Sending domains through Resend's domains API with the official SDK.
 * @example const domains = createResendDomainProvider({ apiKey: config.resend.apiKey!, baseUrl: config.resend.baseUrl });
 * const { providerDomainId, records } = await domains.create('example.com');
 */
export function createResendDomainProvider(options: { apiKey: string; baseUrl?: string }): DomainProvider {
  const resend = new Resend(options.apiKey, { baseUrl: options.baseUrl });
  const requestOptions = () => ({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return {
    name: 'resend',
    async create(domainName) {
      const { data, error } = await resend.domains.create({ name: domainName }, requestOptions());
      if (error || !data) throw providerError('domain create', error ?? { message: '', statusCode: null, name: 'application_error' });
      const records = (data.records as ResendRecord[]).map((r) => toRecord(r, domainName)).filter((r) => r !== null);
      return { providerDomainId: data.id, records: [...records, dmarcRecord(domainName)] };
    },
    async delete(providerDomainId) {
      const { error } = await resend.domains.remove(providerDomainId, requestOptions());
      if (error && error.statusCode !== 404) throw providerError('domain delete', error);
    },
    async verify(providerDomainId) {
      const { error } = await resend.domains.verify(providerDomainId, requestOptions());
      if (error) throw providerError('domain verify', error);
    },
  };
}
