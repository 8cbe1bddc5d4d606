import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type DnsRecord = Schemas['DnsRecord'];
export type EmailDomain = Schemas['EmailDomain'];
export type AddEmailDomainParams = OperationBody<'emailDomain.add'>;
export type SetDefaultSenderParams = OperationBody<'emailDomain.setDefault'>;
export type UpdateEmailDomainParams = OperationBody<'emailDomain.update'>;
export type ListEmailDomainsParams = ListParams;

/** The emailDomain operations (Settings > Email Domains). Needs a `full` key. */
export class EmailDomains extends Resource {
  /**
   * emailDomain.add: provisions the domain and returns the DNS records to publish, all `pending`.
   * @example const { id, records } = await tidings.emailDomains.add({ name: 'example.com' });
   */
  add(params: AddEmailDomainParams, options?: RequestOptions): Promise<EmailDomain> {
    return this.client.call('emailDomain.add', { body: params }, options);
  }

  /**
   * emailDomain.list: the organization's sending domains, newest first.
   * @example for await (const domain of tidings.emailDomains.list()) console.log(domain.name, domain.status);
   */
  list(params: ListEmailDomainsParams = {}, options?: RequestOptions): PageIterator<EmailDomain> {
    return this.client.list('emailDomain.list', { query: params }, options);
  }

  /**
   * emailDomain.get: the domain with each record's DNS status as last checked.
   * @example const domain = await tidings.emailDomains.get('dom_123');
   */
  get(id: string, options?: RequestOptions): Promise<EmailDomain> {
    return this.client.call('emailDomain.get', { params: { id } }, options);
  }

  /**
   * emailDomain.verify: looks every record up in DNS now; `verified` once every required one matches.
   * @example const { status } = await tidings.emailDomains.verify('dom_123');
   */
  verify(id: string, options?: RequestOptions): Promise<EmailDomain> {
    return this.client.call('emailDomain.verify', { params: { id } }, options);
  }

  /**
   * emailDomain.setDefault: the sender message.send uses when `from` is absent; an address on this domain.
   * @example await tidings.emailDomains.setDefault('dom_123', { fromName: 'Acme', fromAddress: 'hello@example.com' });
   */
  setDefault(id: string, params: SetDefaultSenderParams, options?: RequestOptions): Promise<EmailDomain> {
    return this.client.call('emailDomain.setDefault', { params: { id }, body: params }, options);
  }

  /**
   * emailDomain.update: turns Tidings' own open and click tracking on or off for email sent from this domain.
   * @example await tidings.emailDomains.update('dom_123', { openTracking: true, clickTracking: true });
   */
  update(id: string, params: UpdateEmailDomainParams, options?: RequestOptions): Promise<EmailDomain> {
    return this.client.call('emailDomain.update', { params: { id }, body: params }, options);
  }

  /**
   * emailDomain.delete: removes it at the provider too; sending from it afterwards is refused.
   * @example await tidings.emailDomains.delete('dom_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('emailDomain.delete', { params: { id } }, options);
  }
}
