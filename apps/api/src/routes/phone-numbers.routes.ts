import { OpenAPIHono } from '@hono/zod-openapi';
import { phoneNumberOperations as ops } from '@tidings/contracts';
import { getPhoneNumber, listPhoneNumbers, purchasePhoneNumber, releasePhoneNumber, searchAvailableNumbers, updatePhoneNumber } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the six phoneNumber operations declared in @tidings/contracts. The search is registered before `{id}` so `available` is never taken for an id. */
export const phoneNumberRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.searchAvailable), async (c) => c.json(await searchAvailableNumbers(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('query')), 200))
  .openapi(route(ops.purchase), async (c) => c.json(await purchasePhoneNumber(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listPhoneNumbers(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getPhoneNumber(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.update), async (c) => c.json(await updatePhoneNumber(requestContext(c), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.release), async (c) => {
    await releasePhoneNumber(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode);
    return c.body(null, 204);
  });
