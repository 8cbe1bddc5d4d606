import { OpenAPIHono } from '@hono/zod-openapi';
import { emailDomainOperations as ops } from '@tidings/contracts';
import { addEmailDomain, deleteEmailDomain, getEmailDomain, listEmailDomains, setDefaultSender, updateEmailDomain, verifyEmailDomain } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the seven emailDomain operations declared in @tidings/contracts. */
export const emailDomainRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.add), async (c) => c.json(await addEmailDomain(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('json')), 201))
  .openapi(route(ops.list), async (c) => c.json(await listEmailDomains(c.get('deps'), c.get('orgId'), c.req.valid('query')), 200))
  .openapi(route(ops.get), async (c) => c.json(await getEmailDomain(c.get('deps'), c.get('orgId'), c.req.valid('param').id), 200))
  .openapi(route(ops.verify), async (c) => c.json(await verifyEmailDomain(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.setDefault), async (c) => c.json(await setDefaultSender(requestContext(c), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.update), async (c) => c.json(await updateEmailDomain(requestContext(c), c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(route(ops.remove), async (c) => {
    await deleteEmailDomain(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode);
    return c.body(null, 204);
  });
