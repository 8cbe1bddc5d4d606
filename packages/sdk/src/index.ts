export { Tidings, type TidingsOptions } from './tidings.ts';
export { TidingsError, type TidingsErrorCode } from './errors.ts';
export { PageIterator, type Page, type ListParams, type QueryParams } from './pagination.ts';
export type { RequestOptions, RequestSpec, HttpMethod } from './client.ts';
export type { RetryOptions } from './retry.ts';
export { verifyWebhook, webhookSignature, type WebhookEvent, type WebhookHeaders, type VerifyWebhookOptions } from './webhooks.ts';
export * from './resources/api-keys.resource.ts';
export { Webhooks } from './resources/webhooks.resource.ts';
