import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type Broadcast = Schemas['Broadcast'];
export type BroadcastCounts = Schemas['BroadcastCounts'];
export type BroadcastLinks = Schemas['BroadcastLinks'];
export type BroadcastRetry = Schemas['BroadcastRetry'];
export type BroadcastStatus = Broadcast['status'];
export type BroadcastWithCounts = Schemas['BroadcastWithCounts'];
export type CreateBroadcastParams = OperationBody<'broadcast.create'>;
export type SendBroadcastParams = OperationBody<'broadcast.send'>;
export type ListBroadcastsParams = OperationQuery<'broadcast.list'>;

/** The broadcast operations: one template to every subscribed contact of a segment. */
export class Broadcasts extends Resource {
  /**
   * broadcast.create: a draft.
   * @example await tidings.broadcasts.create({ name: 'News', channelType: 'email', templateId: 'tpl_123', segmentId: 'seg_123' });
   */
  create(params: CreateBroadcastParams, options?: RequestOptions): Promise<Broadcast> {
    return this.client.call('broadcast.create', { body: params }, options);
  }

  /**
   * broadcast.list: newest first, optionally of one status.
   * @example for await (const broadcast of tidings.broadcasts.list({ status: 'sending' })) console.log(broadcast.name);
   */
  list(params: ListBroadcastsParams = {}, options?: RequestOptions): PageIterator<Broadcast> {
    return this.client.list('broadcast.list', { query: params }, options);
  }

  /**
   * broadcast.get: with the counts of its recipients and messages.
   * @example const { counts } = await tidings.broadcasts.get('brd_123');
   */
  get(id: string, options?: RequestOptions): Promise<BroadcastWithCounts> {
    return this.client.call('broadcast.get', { params: { id } }, options);
  }

  /**
   * broadcast.send: now, or at `scheduledAt`.
   * @example await tidings.broadcasts.send('brd_123', { scheduledAt: '2026-12-01T09:00:00Z' });
   */
  send(id: string, params: SendBroadcastParams = {}, options?: RequestOptions): Promise<Broadcast> {
    return this.client.call('broadcast.send', { params: { id }, body: params }, options);
  }

  /**
   * broadcast.cancel: while scheduled or sending.
   * @example await tidings.broadcasts.cancel('brd_123');
   */
  cancel(id: string, options?: RequestOptions): Promise<Broadcast> {
    return this.client.call('broadcast.cancel', { params: { id } }, options);
  }

  /**
   * broadcast.links: each clicked link of the broadcast's emails with its clicks and unique clicks, most clicked first.
   * @example const links = await tidings.broadcasts.links('brd_123'); // [{ url, clicks, uniqueClicks }]
   */
  links(id: string, options?: RequestOptions): Promise<BroadcastLinks> {
    return this.client.call('broadcast.links', { params: { id } }, options);
  }

  /**
   * broadcast.retryFailed: queues again the messages that failed for a reason that can pass.
   * @example const { count } = await tidings.broadcasts.retryFailed('brd_123');
   */
  retryFailed(id: string, options?: RequestOptions): Promise<BroadcastRetry> {
    return this.client.call('broadcast.retryFailed', { params: { id } }, options);
  }

  /**
   * broadcast.delete: drafts only.
   * @example await tidings.broadcasts.delete('brd_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('broadcast.delete', { params: { id } }, options);
  }
}
