import { OpenAPIHono } from '@hono/zod-openapi';
import { CreateSuppressionBody, idParam, listOf, Suppression, SuppressionListQuery } from '@tidings/contracts';
import { createSuppression, deleteSuppression, listSuppressions } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Suppressions'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

const list = operation({
  operationId: 'suppression.list',
  method: 'get',
  path: '/suppressions',
  tags,
  summary: 'List suppressed recipients',
  description: 'Addresses and numbers no message is sent to (a send to one ends `failed` / `SUPPRESSED`), newest first.',
  request: { query: SuppressionListQuery },
  responses: { 200: { description: 'A page of suppressions', ...json(listOf(Suppression, 'SuppressionList')) } },
});

const create = operation({
  operationId: 'suppression.create',
  method: 'post',
  path: '/suppressions',
  tags,
  summary: 'Suppress a recipient',
  description: 'Blocks sends to the address or number (reason `manual`), compared the way sends compare it. 409 when it is already suppressed.',
  request: { body: { required: true, ...json(CreateSuppressionBody) } },
  responses: { 201: { description: 'The suppression', ...json(Suppression) } },
});

const remove = operation({
  operationId: 'suppression.delete',
  method: 'delete',
  path: '/suppressions/{id}',
  tags,
  summary: 'Lift a suppression',
  description: 'The next send to the recipient goes out again (a bounced address can be tried again). Contacts\' subscription flags stay as they are.',
  request: { params: idParam('sup') },
  responses: { 204: { description: 'Lifted' } },
});

/** The three suppression operations. */
export const suppressionRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(list, async (c) => c.json(await listSuppressions(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(create, async (c) => c.json(await createSuppression(c.var.deps, c.var.orgId, c.req.valid('json')), 201))
  .openapi(remove, async (c) => {
    await deleteSuppression(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
