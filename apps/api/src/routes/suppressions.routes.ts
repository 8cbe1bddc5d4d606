import { OpenAPIHono } from '@hono/zod-openapi';
import { suppressionOperations as ops } from '@tidings/contracts';
import { createSuppression, deleteSuppression, listSuppressions } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the three suppression operations declared in @tidings/contracts. A key sees and changes only its own mode's list. */
export const suppressionRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.list), async (c) => c.json(await listSuppressions(c.get('deps'), c.get('orgId'), c.req.valid('query'), c.get('principal').mode), 200))
  .openapi(route(ops.create), async (c) => c.json(await createSuppression(c.get('deps'), c.get('orgId'), c.req.valid('json'), c.get('principal').mode), 201))
  .openapi(route(ops.remove), async (c) => {
    await deleteSuppression(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode);
    return c.body(null, 204);
  });
