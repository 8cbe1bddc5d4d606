import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookHeaders } from '../webhooks.ts';
import { Resource } from './resource.ts';

export type EventType = Schemas['EventType'];
export type ReplayWebhookResponse = Schemas['ReplayWebhookResponse'];
export type Webhook = Schemas['Webhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryDetail = Schemas['WebhookDeliveryDetail'];
export type WebhookDeliveryStatus = WebhookDelivery['status'];
export type WebhookDetail = Schemas['WebhookDetail'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type ReplayWebhookParams = OperationBody<'webhook.replay'>;
export type CreateWebhookParams = OperationBody<'webhook.create'>;
export type UpdateWebhookParams = OperationBody<'webhook.update'>;
export type ListWebhooksParams = ListParams;
export type ListWebhookEventsParams = OperationQuery<'webhook.listEvents'>;

/** The webhook operations (Settings > Webhooks; needs a `full` key), and `verify` for the receiving side. */
export class Webhooks extends Resource {
  /**
   * webhook.create: registers an endpoint; `secret` (for `verify`) is in this response only.
   * @example const { id, secret } = await tidings.webhooks.create({ url: 'https://example.com/hooks', events: ['message.delivered'] });
   */
  create(params: CreateWebhookParams, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.client.call('webhook.create', { body: params }, options);
  }

  /**
   * webhook.list: every endpoint, disabled ones included, newest first; never a secret.
   * @example for await (const webhook of tidings.webhooks.list()) console.log(webhook.url, webhook.enabled);
   */
  list(params: ListWebhooksParams = {}, options?: RequestOptions): PageIterator<Webhook> {
    return this.client.list('webhook.list', { query: params }, options);
  }

  /**
   * webhook.get: the endpoint with `recentEvents`, its last 20 deliveries.
   * @example const { recentEvents } = await tidings.webhooks.get('whk_123');
   */
  get(id: string, options?: RequestOptions): Promise<WebhookDetail> {
    return this.client.call('webhook.get', { params: { id } }, options);
  }

  /**
   * webhook.update: url, events, description, or `enabled: true` to re-enable a disabled endpoint.
   * @example await tidings.webhooks.update('whk_123', { events: ['message.delivered', 'message.bounced'] });
   */
  update(id: string, params: UpdateWebhookParams, options?: RequestOptions): Promise<Webhook> {
    return this.client.call('webhook.update', { params: { id }, body: params }, options);
  }

  /**
   * webhook.delete: disables the endpoint (its history stays) and returns it.
   * @example const { enabled } = await tidings.webhooks.delete('whk_123'); // false
   */
  delete(id: string, options?: RequestOptions): Promise<Webhook> {
    return this.client.call('webhook.delete', { params: { id } }, options);
  }

  /**
   * webhook.test: sends a `webhook.test` event to this endpoint now; returns the pending delivery.
   * @example const delivery = await tidings.webhooks.test('whk_123');
   */
  test(id: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.client.call('webhook.test', { params: { id } }, options);
  }

  /**
   * webhook.listEvents: deliveries to this endpoint, newest first, with their latest attempt.
   * @example for await (const delivery of tidings.webhooks.listEvents('whk_123', { status: 'failed' })) console.log(delivery.eventId);
   */
  listEvents(id: string, params: ListWebhookEventsParams = {}, options?: RequestOptions): PageIterator<WebhookDelivery> {
    return this.client.list('webhook.listEvents', { params: { id }, query: params }, options);
  }

  /**
   * webhook.rotateSecret: a new secret, shown once; for 24 h deliveries carry a signature with each.
   * @example const { secret } = await tidings.webhooks.rotateSecret('whk_123');
   */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.client.call('webhook.rotateSecret', { params: { id } }, options);
  }

  /**
   * webhook.getEvent: one delivery with the payload it sends and every attempt.
   * @example const { attemptLog } = await tidings.webhooks.getEvent('whk_123', 'dlv_456');
   */
  getEvent(id: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDeliveryDetail> {
    return this.client.call('webhook.getEvent', { params: { id, deliveryId } }, options);
  }

  /**
   * webhook.retryEvent: delivers it again now, whatever its status (same `webhook-id`, fresh signature).
   * @example await tidings.webhooks.retryEvent('whk_123', 'dlv_456');
   */
  retryEvent(id: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDeliveryDetail> {
    return this.client.call('webhook.retryEvent', { params: { id, deliveryId } }, options);
  }

  /**
   * webhook.replay: re-delivers the deliveries created in a range (only the failed ones with `status: 'failed'`).
   * @example const { count } = await tidings.webhooks.replay('whk_123', { since: '2026-11-24T00:00:00Z', status: 'failed' });
   */
  replay(id: string, params: ReplayWebhookParams, options?: RequestOptions): Promise<ReplayWebhookResponse> {
    return this.client.call('webhook.replay', { params: { id }, body: params }, options);
  }

  /**
   * Verifies a delivery's Standard Webhooks signature and returns the event; throws INVALID_SIGNATURE otherwise.
   * @example const event = await tidings.webhooks.verify(rawBody, req.headers, 'whsec_...');
   */
  verify<TData = Record<string, unknown>>(payload: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): Promise<WebhookEvent<TData>> {
    return verifyWebhook<TData>(payload, headers, secret, options);
  }
}
