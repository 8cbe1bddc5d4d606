import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

type Contact = Schemas['Contact'];
export type Segment = Schemas['Segment'];
export type SegmentCondition = Schemas['SegmentCondition'];
export type SegmentCriteria = Schemas['SegmentCriteria'];
export type SegmentWithCount = Schemas['SegmentWithCount'];
export type CreateSegmentParams = OperationBody<'segment.create'>;
export type UpdateSegmentParams = OperationBody<'segment.update'>;
export type ListSegmentsParams = ListParams;

/** The segment operations: saved contact filters, evaluated when read. */
export class Segments extends Resource {
  /**
   * segment.create: returns the segment with how many contacts match now.
   * @example await tidings.segments.create({ name: 'Pro', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
   */
  create(params: CreateSegmentParams, options?: RequestOptions): Promise<SegmentWithCount> {
    return this.client.call('segment.create', { body: params }, options);
  }

  /**
   * segment.list: newest first.
   * @example for await (const segment of tidings.segments.list()) console.log(segment.name);
   */
  list(params: ListSegmentsParams = {}, options?: RequestOptions): PageIterator<Segment> {
    return this.client.list('segment.list', { query: params }, options);
  }

  /**
   * segment.get: with its current contact count.
   * @example const { contactCount } = await tidings.segments.get('seg_123');
   */
  get(id: string, options?: RequestOptions): Promise<SegmentWithCount> {
    return this.client.call('segment.get', { params: { id } }, options);
  }

  /**
   * segment.update: a new name and/or criteria.
   * @example await tidings.segments.update('seg_123', { name: 'Pro plan' });
   */
  update(id: string, params: UpdateSegmentParams, options?: RequestOptions): Promise<SegmentWithCount> {
    return this.client.call('segment.update', { params: { id }, body: params }, options);
  }

  /**
   * segment.delete
   * @example await tidings.segments.delete('seg_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('segment.delete', { params: { id } }, options);
  }

  /**
   * segment.listContacts: the contacts matching the criteria now, newest first.
   * @example for await (const contact of tidings.segments.listContacts('seg_123')) console.log(contact.email);
   */
  listContacts(id: string, params: ListParams = {}, options?: RequestOptions): PageIterator<Contact> {
    return this.client.list('segment.listContacts', { params: { id }, query: params }, options);
  }
}
