import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type ApiKey = Schemas['ApiKey'];
export type ApiKeyWithSecret = Schemas['ApiKeyWithSecret'];
export type CreateApiKeyParams = OperationBody<'apiKey.create'>;
export type RotateApiKeyParams = OperationBody<'apiKey.rotate'>;
export type ListApiKeysParams = ListParams;

/** The apiKey operations (Settings > API Keys). Needs a `full` key. */
export class ApiKeys extends Resource {
  /**
   * apiKey.create: a new key; `key` holds the full secret in this response only.
   * @example const { key } = await tidings.apiKeys.create({ name: 'CI', permission: 'sending' });
   */
  create(params: CreateApiKeyParams, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.client.call('apiKey.create', { body: params }, options);
  }

  /**
   * apiKey.list: keys that are not deleted, newest first; never the secret.
   * @example for await (const key of tidings.apiKeys.list({ limit: 100 })) console.log(key.prefix);
   */
  list(params: ListApiKeysParams = {}, options?: RequestOptions): PageIterator<ApiKey> {
    return this.client.list('apiKey.list', { query: params }, options);
  }

  /**
   * apiKey.rotate: a new secret, shown once; the old one works for 24 h unless `immediately`.
   * @example const { key } = await tidings.apiKeys.rotate('key_123', { immediately: true });
   */
  rotate(id: string, params: RotateApiKeyParams = {}, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.client.call('apiKey.rotate', { params: { id }, body: params }, options);
  }

  /**
   * apiKey.disable: requests with the key get 401 until it is enabled.
   * @example await tidings.apiKeys.disable('key_123');
   */
  disable(id: string, options?: RequestOptions): Promise<ApiKey> {
    return this.client.call('apiKey.disable', { params: { id } }, options);
  }

  /**
   * apiKey.enable: a disabled key works again.
   * @example await tidings.apiKeys.enable('key_123');
   */
  enable(id: string, options?: RequestOptions): Promise<ApiKey> {
    return this.client.call('apiKey.enable', { params: { id } }, options);
  }

  /**
   * apiKey.delete: final; the key cannot be enabled again.
   * @example await tidings.apiKeys.delete('key_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('apiKey.delete', { params: { id } }, options);
  }
}
