import { OpenAPIHono } from '@hono/zod-openapi';
import { contactOperations as ops } from '@tidings/contracts';
import { bulkCreateContacts, createContact, deleteContact, getContact, listContacts, updateContact } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the six contact operations declared in @tidings/contracts. */
export const contactRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createContact(c.get('deps'), c.get('orgId'), c.req.valid('json')), 201))
  .openapi(route(ops.bulkCreate), async (c) => c.json(await bulkCreateContacts(c.get('deps'), c.get('orgId'), c.req.valid('json').contacts), 200))
  .openapi(route(ops.list), async (c) => c.json(await listContacts(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id);
    return c.body(null, 204);
  });
