import type { CreateSuppressionBody, Suppression, SuppressionListQuery, SuppressionReason, z } from '@tidings/contracts';
import type { RequestOptions } from '../client.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type { Suppression, SuppressionReason };
export type CreateSuppressionParams = z.input<typeof CreateSuppressionBody>;
export type ListSuppressionsParams = ListParams & Partial<Omit<z.input<typeof SuppressionListQuery>, keyof ListParams>>;

/** The suppression list: addresses and numbers no message is sent to. */
export class Suppressions extends Resource {
  /**
   * suppression.list: newest first; filter by channel, reason or address.
   * @example for await (const s of tidings.suppressions.list({ reason: 'stopped' })) console.log(s.address);
   */
  list(params: ListSuppressionsParams = {}, options?: RequestOptions): PageIterator<Suppression> {
    return this.client.list<Suppression>('suppression.list', { query: params }, options);
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
