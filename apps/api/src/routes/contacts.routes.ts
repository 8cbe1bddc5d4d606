import { OpenAPIHono } from '@hono/zod-openapi';
import { contactOperations as ops } from '@tidings/contracts';
import { bulkCreateContacts, createContact, deleteContact, exportContacts, getContact, listContacts, updateContact } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the contact operations declared in @tidings/contracts (the export before `/contacts/{id}`, which would take its path). */
export const contactRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createContact(c.get('deps'), c.get('orgId'), c.req.valid('json')), 201))
  .openapi(route(ops.bulkCreate), async (c) => {
    const { contacts, onConflict } = c.req.valid('json');
    return c.json(await bulkCreateContacts(c.get('deps'), c.get('orgId'), contacts, onConflict), 200);
  })
  .openapi(route(ops.list), async (c) => c.json(await listContacts(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.export), async (c) =>
    c.body(await exportContacts(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="contacts.csv"',
    }),
  )
  .openapi(route(ops.get), async (c) => c.json(await getContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteContact(c.get('deps'), c.get('orgId'), c.req.valid('param').id);
    return c.body(null, 204);
  });
