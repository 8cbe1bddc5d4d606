import { OpenAPIHono } from '@hono/zod-openapi';
import {
  CreateWebhookBody,
  idParam,
  ListQuery,
  listOf,
  ListWebhookEventsQuery,
  ReplayWebhookBody,
  ReplayWebhookResponse,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryParams,
  WebhookDetail,
  WebhookWithSecret,
} from '@tidings/contracts';
import {
  createWebhook,
  disableWebhook,
  getWebhook,
  getWebhookDelivery,
  replayWebhookDeliveries,
  retryWebhookDelivery,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Webhooks'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const WebhookIdParam = idParam('whk');
const signing =
  'Deliveries are signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`); verify them with the `standardwebhooks` library and this secret.';

const create = operation({
  operationId: 'webhook.create',
  method: 'post',
  path: '/webhooks',
  tags,
  summary: 'Register a webhook endpoint',
  description: `Registers a URL for the given event types. The URL must be https in production and resolve to public addresses only. The secret is in this response only. ${signing}`,
  request: { body: { required: true, ...json(CreateWebhookBody) } },
  responses: { 201: { description: 'The endpoint, with its signing secret', ...json(WebhookWithSecret) } },
});

const list = operation({
  operationId: 'webhook.list',
  method: 'get',
  path: '/webhooks',
  tags,
  summary: 'List webhook endpoints',
  description: 'Every endpoint of the organization, disabled ones included, newest first.',
  request: { query: ListQuery },
  responses: { 200: { description: 'A page of endpoints', ...json(listOf(Webhook, 'WebhookList')) } },
});

const get = operation({
  operationId: 'webhook.get',
  method: 'get',
  path: '/webhooks/{id}',
  tags,
  summary: 'Get a webhook endpoint',
  description: 'The endpoint with `recentEvents`: its last 20 deliveries, newest first.',
  request: { params: WebhookIdParam },
  responses: { 200: { description: 'The endpoint', ...json(WebhookDetail) } },
});

const update = operation({
  operationId: 'webhook.update',
  method: 'patch',
  path: '/webhooks/{id}',
  tags,
  summary: 'Update a webhook endpoint',
  description: 'Changes url (checked again), events, description or `enabled` (`true` re-enables a disabled endpoint).',
  request: { params: WebhookIdParam, body: { required: true, ...json(UpdateWebhookBody) } },
  responses: { 200: { description: 'The updated endpoint', ...json(Webhook) } },
});

const remove = operation({
  operationId: 'webhook.delete',
  method: 'delete',
  path: '/webhooks/{id}',
  tags,
  summary: 'Delete (disable) a webhook endpoint',
  description: 'Disables the endpoint: nothing is delivered to it again. Its history stays; `enabled: true` in an update brings it back.',
  request: { params: WebhookIdParam },
  responses: { 200: { description: 'The disabled endpoint', ...json(Webhook) } },
});

const test = operation({
  operationId: 'webhook.test',
  method: 'post',
  path: '/webhooks/{id}/test',
  tags,
  summary: 'Send a test event',
  description: 'Sends a `webhook.test` event to this endpoint only, now (subscribed to it or not). 400 when the endpoint is disabled.',
  request: { params: WebhookIdParam },
  responses: { 202: { description: 'The delivery, pending', ...json(WebhookDelivery) } },
});

const listEvents = operation({
  operationId: 'webhook.listEvents',
  method: 'get',
  path: '/webhooks/{id}/events',
  tags,
  summary: 'List deliveries of a webhook endpoint',
  description: 'Deliveries to this endpoint, newest first, with their latest attempt; filter by `status`.',
  request: { params: WebhookIdParam, query: ListWebhookEventsQuery },
  responses: { 200: { description: 'A page of deliveries', ...json(listOf(WebhookDelivery, 'WebhookDeliveryList')) } },
});

const rotateSecret = operation({
  operationId: 'webhook.rotateSecret',
  method: 'post',
  path: '/webhooks/{id}/rotate-secret',
  tags,
  summary: 'Rotate the signing secret',
  description: 'A new secret, shown once. For 24 h the previous one signs too: `webhook-signature` carries two `v1,` signatures.',
  request: { params: WebhookIdParam },
  responses: { 200: { description: 'The endpoint with its new secret', ...json(WebhookWithSecret) } },
});

const getEvent = operation({
  operationId: 'webhook.getEvent',
  method: 'get',
  path: '/webhooks/{id}/events/{deliveryId}',
  tags,
  summary: 'Get one delivery',
  description: 'The delivery with the payload it sends and every attempt, oldest first: status code, duration, the first 64 KiB of the answer, or the error.',
  request: { params: WebhookDeliveryParams },
  responses: { 200: { description: 'The delivery', ...json(WebhookDeliveryDetail) } },
});

const retryEvent = operation({
  operationId: 'webhook.retryEvent',
  method: 'post',
  path: '/webhooks/{id}/events/{deliveryId}/retry',
  tags,
  summary: 'Deliver again now',
  description:
    'Delivers it again now, whatever its status. The payload and `webhook-id` stay the same (receivers dedupe by it); the signature is made afresh with a new timestamp. 400 when the endpoint is disabled.',
  request: { params: WebhookDeliveryParams },
  responses: { 202: { description: 'The delivery, pending again', ...json(WebhookDeliveryDetail) } },
});

const replay = operation({
  operationId: 'webhook.replay',
  method: 'post',
  path: '/webhooks/{id}/replay',
  tags,
  summary: 'Re-deliver a range',
  description:
    'Re-delivers every delivery of this endpoint created in `[since, until)` (`status: "failed"`: only those that gave up), after an outage. The deliveries go out through the queue at the worker\'s normal pace, each with its original `webhook-id`. 400 when the endpoint is disabled.',
  request: { params: WebhookIdParam, body: { required: true, ...json(ReplayWebhookBody) } },
  responses: { 202: { description: 'How many deliveries will go out again', ...json(ReplayWebhookResponse) } },
});

/** The webhook operations. */
export const webhookRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => c.json(await createWebhook(c.var.deps, c.var.orgId, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listWebhooks(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getWebhook(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(update, async (c) => c.json(await updateWebhook(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(remove, async (c) => c.json(await disableWebhook(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(test, async (c) => c.json(await sendTestEvent(c.var.deps, c.var.orgId, c.req.valid('param').id), 202))
  .openapi(listEvents, async (c) =>
    c.json(await listWebhookDeliveries(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('query')), 200),
  )
  .openapi(rotateSecret, async (c) => c.json(await rotateWebhookSecret(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(getEvent, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(await getWebhookDelivery(c.var.deps, c.var.orgId, id, deliveryId), 200);
  })
  .openapi(retryEvent, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(await retryWebhookDelivery(c.var.deps, c.var.orgId, id, deliveryId), 202);
  })
  .openapi(replay, async (c) => c.json(await replayWebhookDeliveries(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 202));
