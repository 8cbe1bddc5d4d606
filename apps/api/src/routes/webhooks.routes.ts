import { OpenAPIHono } from '@hono/zod-openapi';
import { webhookOperations as ops } from '@tidings/contracts';
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
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the webhook operations declared in @tidings/contracts. A key sees and changes only its own mode's endpoints. */
export const webhookRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createWebhook(c.get('deps'), c.get('orgId'), c.req.valid('json'), c.get('principal').mode), 201))
  .openapi(route(ops.list), async (c) => c.json(await listWebhooks(c.get('deps'), c.get('orgId'), c.req.valid('query'), c.get('principal').mode), 200))
  .openapi(route(ops.get), async (c) => c.json(await getWebhook(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateWebhook(requestContext(c), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => c.json(await disableWebhook(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.test), async (c) => c.json(await sendTestEvent(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 202))
  .openapi(route(ops.listEvents), async (c) => c.json(await listWebhookDeliveries(requestContext(c), c.req.valid('param').id, c.req.valid('query')), 200))
  .openapi(route(ops.rotateSecret), async (c) => c.json(await rotateWebhookSecret(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.getEvent), async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(await getWebhookDelivery(requestContext(c), id, deliveryId), 200);
  })
  .openapi(route(ops.retryEvent), async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(await retryWebhookDelivery(requestContext(c), id, deliveryId), 202);
  })
  .openapi(route(ops.replay), async (c) => c.json(await replayWebhookDeliveries(requestContext(c), c.req.valid('param').id, c.req.valid('json')), 202));
