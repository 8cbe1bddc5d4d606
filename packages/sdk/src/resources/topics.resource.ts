import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type Topic = Schemas['Topic'];
export type CreateTopicParams = OperationBody<'topic.create'>;
export type UpdateTopicParams = OperationBody<'topic.update'>;
export type ListTopicsParams = ListParams;

/** The topic operations: subscription categories a broadcast targets and the preference page offers. */
export class Topics extends Resource {
  /**
   * topic.create
   * @example await tidings.topics.create({ name: 'Product news', defaultSubscription: 'opt_out' });
   */
  create(params: CreateTopicParams, options?: RequestOptions): Promise<Topic> {
    return this.client.call('topic.create', { body: params }, options);
  }

  /**
   * topic.list: newest first.
   * @example for await (const topic of tidings.topics.list()) console.log(topic.name);
   */
  list(params: ListTopicsParams = {}, options?: RequestOptions): PageIterator<Topic> {
    return this.client.list('topic.list', { query: params }, options);
  }

  /**
   * topic.get
   * @example const topic = await tidings.topics.get('top_123');
   */
  get(id: string, options?: RequestOptions): Promise<Topic> {
    return this.client.call('topic.get', { params: { id } }, options);
  }

  /**
   * topic.update
   * @example await tidings.topics.update('top_123', { visibility: 'private' });
   */
  update(id: string, params: UpdateTopicParams, options?: RequestOptions): Promise<Topic> {
    return this.client.call('topic.update', { params: { id }, body: params }, options);
  }

  /**
   * topic.delete: broadcasts that named it keep their history.
   * @example await tidings.topics.delete('top_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('topic.delete', { params: { id } }, options);
  }
}
