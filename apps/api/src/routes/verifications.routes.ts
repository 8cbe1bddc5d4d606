import { OpenAPIHono } from '@hono/zod-openapi';
import { organizationOperations, verificationOperations as ops } from '@tidings/contracts';
import { cancelVerification, checkVerification, createVerification, getOrganizationSettings, getVerification, listVerifications, updateOrganizationSettings } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handlers of the Verify operations and of the organization's own settings, declared in @tidings/contracts. A key sees its own mode's verifications. */
export const verificationRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.create), async (c) => c.json(await createVerification(requestContext(c), c.req.valid('json')), 201))
  .openapi(route(ops.check), async (c) => c.json(await checkVerification(requestContext(c), c.req.valid('param').id, c.req.valid('json').code), 200))
  .openapi(route(ops.get), async (c) => c.json(await getVerification(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('param').id), 200))
  .openapi(route(ops.cancel), async (c) => c.json(await cancelVerification(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('param').id), 200))
  .openapi(route(ops.list), async (c) => c.json(await listVerifications(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('query')), 200))
  .openapi(route(organizationOperations.get), async (c) => c.json(await getOrganizationSettings(c.get('deps'), c.get('orgId')), 200))
  .openapi(route(organizationOperations.update), async (c) => c.json(await updateOrganizationSettings(c.get('deps'), c.get('orgId'), c.req.valid('json')), 200));
