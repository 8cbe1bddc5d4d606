import { OpenAPIHono } from '@hono/zod-openapi';
import { segmentOperations as ops, SegmentConditionSchema } from '@tidings/contracts';
import { createSegment, deleteSegment, getSegment, listSegmentContacts, listSegments, updateSegment } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the six segment operations declared in @tidings/contracts. */
export const segmentRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createSegment(c.get('deps'), c.get('orgId'), c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listSegments(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getSegment(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateSegment(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteSegment(c.get('deps'), c.get('orgId'), c.req.valid('param').id);
    return c.body(null, 204);
  })
  .openapi(route(ops.listContacts), async (c) => c.json(await listSegmentContacts(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('query')), 200));

// SegmentCriteria refers to SegmentCondition by $ref only (the criteria are recursive), so register it by name.
segmentRoutes.openAPIRegistry.register('SegmentCondition', SegmentConditionSchema);
