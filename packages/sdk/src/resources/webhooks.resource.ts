import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookHeaders } from '../webhooks.ts';
import { Resource } from './resource.ts';

/**
 * The webhook operations. For now the receiving side only: `verify`. The webhook.* endpoint methods
 * (create, list, get, update, delete, test, listEvents, rotateSecret) belong here too.
 */
export class Webhooks extends Resource {
  /**
   * Verifies a delivery's Standard Webhooks signature and returns the event; throws INVALID_SIGNATURE otherwise.
   * @example const event = await tidings.webhooks.verify(rawBody, req.headers, 'whsec_...');
   */
  verify<TData = Record<string, unknown>>(
    payload: string | Uint8Array,
    headers: WebhookHeaders,
    secret: string,
    options?: VerifyWebhookOptions,
  ): Promise<WebhookEvent<TData>> {
    return verifyWebhook<TData>(payload, headers, secret, options);
  }
}
