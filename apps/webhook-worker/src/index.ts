export { startWebhookWorker, type WebhookWorker } from './webhook-worker.ts';
export { deliverWebhook, type DeliverOptions } from './deliver-webhook.processor.ts';
