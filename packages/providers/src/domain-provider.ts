/** What a DNS record is for; the API shows it so a person knows which record does what. */
export type DnsRecordPurpose = 'spf' | 'dkim' | 'dmarc' | 'returnPath';

/** A DNS record a sending domain needs, as the provider asks for it. `name` is fully qualified, without a final dot. */
export type RequiredDnsRecord = {
  purpose: DnsRecordPurpose;
  type: 'TXT' | 'MX' | 'CNAME';
  name: string;
  value: string;
  priority?: number;
  /** False for records that are recommended but do not block verification (DMARC). */
  required: boolean;
};

export type ProvisionedDomain = { providerDomainId: string; records: RequiredDnsRecord[] };

/**
 * Provisions sending domains at an email provider. Implementations: Resend (`resend-domain.provider.ts`), Amazon SES
 * (`ses-domain.provider.ts`) and the sandbox (`sandbox-domain.provider.ts`).
 */
export interface DomainProvider {
  /** Stored on the domain, so later calls go to the provider that holds it. */
  readonly name: 'resend' | 'ses' | 'sandbox';
  /** Registers `domainName` and returns the records its owner must publish. */
  create(domainName: string): Promise<ProvisionedDomain>;
  /** Removes the domain; a domain the provider no longer knows counts as removed. */
  delete(providerDomainId: string): Promise<void>;
  /** Asks the provider to check DNS itself (after our own check found every required record). */
  verify?(providerDomainId: string): Promise<void>;
  /** The provider's own verdict on the domain, where it checks DNS itself and will not send before (SES). */
  status?(providerDomainId: string): Promise<'verified' | 'pending' | 'failed'>;
}

/** The DMARC record every sending domain should publish; providers other than us rarely list it. */
export function dmarcRecord(domainName: string): RequiredDnsRecord {
  return { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domainName}`, value: 'v=DMARC1; p=none;', required: false };
}
