import { OpenAPIHono } from '@hono/zod-openapi';
import { apiKeyOperations as ops, RotateApiKeyBody } from '@tidings/contracts';
import { createApiKey, deleteApiKey, listApiKeys, rotateApiKey, setApiKeyEnabled } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the six apiKey operations declared in @tidings/contracts; the caller's key mode limits what it manages. */
export const apiKeyRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => {
    const key = await createApiKey(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('json'));
    return c.json(key, 201);
  })
  .openapi(route(ops.list), async (c) => c.json(await listApiKeys(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('query')), 200))
  .openapi(route(ops.rotate), async (c) => {
    const body = RotateApiKeyBody.parse((await c.req.text()) ? c.req.valid('json') : {});
    return c.json(await rotateApiKey(requestContext(c), c.req.valid('param').id, body), 200);
  })
  .openapi(route(ops.disable), async (c) => c.json(await setApiKeyEnabled(requestContext(c), c.req.valid('param').id, false), 200))
  .openapi(route(ops.enable), async (c) => c.json(await setApiKeyEnabled(requestContext(c), c.req.valid('param').id, true), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteApiKey(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('param').id);
    return c.body(null, 204);
  });
