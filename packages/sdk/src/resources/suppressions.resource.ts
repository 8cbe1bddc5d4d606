import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type Suppression = Schemas['Suppression'];
export type SuppressionReason = Suppression['reason'];
export type CreateSuppressionParams = OperationBody<'suppression.create'>;
export type ListSuppressionsParams = OperationQuery<'suppression.list'>;

/** The suppression list: addresses and numbers no message is sent to. */
export class Suppressions extends Resource {
  /**
   * suppression.list: newest first; filter by channel, reason or address.
   * @example for await (const s of tidings.suppressions.list({ reason: 'stopped' })) console.log(s.address);
   */
  list(params: ListSuppressionsParams = {}, options?: RequestOptions): PageIterator<Suppression> {
    return this.client.list('suppression.list', { query: params }, options);
  }

  /**
   * suppression.create: blocks sends to the address or number (reason `manual`); a CONFLICT error when it is already suppressed.
   * @example await tidings.suppressions.create({ channelType: 'email', address: 'ada@example.com' });
   */
  create(params: CreateSuppressionParams, options?: RequestOptions): Promise<Suppression> {
    return this.client.call('suppression.create', { body: params }, options);
  }

  /**
   * suppression.delete: lifts it; the next send to the recipient goes out.
   * @example await tidings.suppressions.delete('sup_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('suppression.delete', { params: { id } }, options);
  }
}
