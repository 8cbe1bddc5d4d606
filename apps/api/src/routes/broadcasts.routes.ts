import { OpenAPIHono } from '@hono/zod-openapi';
import { broadcastOperations as ops } from '@tidings/contracts';
import { broadcastLinks, cancelBroadcast, createBroadcast, deleteBroadcast, getBroadcast, listBroadcasts, retryFailedBroadcastMessages, sendBroadcast } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the eight broadcast operations declared in @tidings/contracts. A key acts only on its own mode's broadcasts. */
export const broadcastRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createBroadcast(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listBroadcasts(c.get('deps'), c.get('orgId'), c.req.valid('query'), c.get('principal').mode), 200))
  .openapi(route(ops.get), async (c) => c.json(await getBroadcast(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.links), async (c) => c.json(await broadcastLinks(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.send), async (c) => c.json(await sendBroadcast(requestContext(c), c.req.valid('param').id, c.req.valid('json') ?? {}), 202))
  .openapi(route(ops.cancel), async (c) => c.json(await cancelBroadcast(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.retryFailed), async (c) => c.json(await retryFailedBroadcastMessages(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 202))
  .openapi(route(ops.remove), async (c) => {
    await deleteBroadcast(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode);
    return c.body(null, 204);
  });
