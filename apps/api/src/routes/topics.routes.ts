import { OpenAPIHono } from '@hono/zod-openapi';
import { topicOperations as ops } from '@tidings/contracts';
import { createTopic, deleteTopic, getTopic, listTopics, updateTopic } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the five topic operations declared in @tidings/contracts. */
export const topicRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createTopic(c.get('deps'), c.get('orgId'), c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listTopics(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getTopic(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateTopic(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteTopic(c.get('deps'), c.get('orgId'), c.req.valid('param').id);
    return c.body(null, 204);
  });
