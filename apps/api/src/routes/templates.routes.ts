import { OpenAPIHono } from '@hono/zod-openapi';
import { templateOperations as ops } from '@tidings/contracts';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, listTemplateVersions, previewTemplate, updateTemplate } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the seven template operations declared in @tidings/contracts. */
export const templateRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createTemplate(c.get('deps'), c.get('orgId'), c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listTemplates(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getTemplate(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('query')), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateTemplate(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteTemplate(c.get('deps'), c.get('orgId'), c.req.valid('param').id);
    return c.body(null, 204);
  })
  .openapi(route(ops.listVersions), async (c) => c.json(await listTemplateVersions(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('query')), 200))
  .openapi(route(ops.preview), async (c) => c.json(await previewTemplate(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200));
