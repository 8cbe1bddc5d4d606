import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type BulkCreateContactsResult = Schemas['BulkCreateContactsResult'];
export type Contact = Schemas['Contact'];
export type RowError = Schemas['RowError'];
export type CreateContactParams = OperationBody<'contact.create'>;
export type UpdateContactParams = OperationBody<'contact.update'>;
export type BulkCreateContactsParams = OperationBody<'contact.bulkCreate'>;
export type ExportContactsParams = OperationQuery<'contact.export'>;
export type ListContactsParams = OperationQuery<'contact.list'>;

/** The contact operations: the people messages go to. */
export class Contacts extends Resource {
  /**
   * contact.create: email or phone (or both) is required; a retried call with the same idempotency key creates one contact.
   * @example const contact = await tidings.contacts.create({ email: 'ada@example.com', firstName: 'Ada' });
   */
  create(params: CreateContactParams, options?: RequestOptions): Promise<Contact> {
    return this.client.call('contact.create', { body: params }, options);
  }

  /**
   * contact.list: newest first; filter by email, phone, name prefix (`q`), segment or subscription.
   * @example for await (const contact of tidings.contacts.list({ q: 'ada' })) console.log(contact.email);
   */
  list(params: ListContactsParams = {}, options?: RequestOptions): PageIterator<Contact> {
    return this.client.list('contact.list', { query: params }, options);
  }

  /**
   * contact.get
   * @example const contact = await tidings.contacts.get('con_123');
   */
  get(id: string, options?: RequestOptions): Promise<Contact> {
    return this.client.call('contact.get', { params: { id } }, options);
  }

  /**
   * contact.update: changes the given fields; attributes merge key by key (`null` removes a key).
   * @example await tidings.contacts.update('con_123', { attributes: { plan: 'team' } });
   */
  update(id: string, params: UpdateContactParams, options?: RequestOptions): Promise<Contact> {
    return this.client.call('contact.update', { params: { id }, body: params }, options);
  }

  /**
   * contact.delete
   * @example await tidings.contacts.delete('con_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('contact.delete', { params: { id } }, options);
  }

  /**
   * contact.bulkCreate: up to 1,000 rows; bad rows are reported by index in `errors`, the others are created (or with
   * `onConflict: 'update'`, a row whose email or phone a contact has changes that contact).
   * @example const { created, updated, errors } = await tidings.contacts.bulkCreate({ contacts: [{ email: 'a@example.com' }], onConflict: 'update' });
   */
  bulkCreate(params: BulkCreateContactsParams, options?: RequestOptions): Promise<BulkCreateContactsResult> {
    return this.client.call('contact.bulkCreate', { body: params }, options);
  }

  /**
   * contact.export: the contacts matching contact.list's filters as CSV text (attributes as `attributes.<key>` columns).
   * @example const csv = await tidings.contacts.export({ subscribed: true });
   */
  export(params: ExportContactsParams = {}, options?: RequestOptions): Promise<string> {
    return this.client.call('contact.export', { query: params }, options);
  }
}
