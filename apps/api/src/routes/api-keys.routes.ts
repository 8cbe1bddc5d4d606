import { OpenAPIHono } from '@hono/zod-openapi';
import { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, idParam, ListQuery, listOf, RotateApiKeyBody } from '@tidings/contracts';
import { createApiKey, deleteApiKey, listApiKeys, rotateApiKey, setApiKeyEnabled } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['API keys'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const KeyIdParam = idParam('key');

const create = operation({
  operationId: 'apiKey.create',
  method: 'post',
  path: '/api-keys',
  tags,
  summary: 'Create an API key',
  description: 'Creates a key for this organization. The full key is in this response only; store it now.',
  request: { body: { required: true, ...json(CreateApiKeyBody) } },
  responses: { 201: { description: 'The new key, with its secret', ...json(ApiKeyWithSecret) } },
});

const list = operation({
  operationId: 'apiKey.list',
  method: 'get',
  path: '/api-keys',
  tags,
  summary: 'List API keys',
  description: 'Keys that are not deleted, newest first. Never the full key: `prefix` and `lastUsedAt` tell them apart.',
  request: { query: ListQuery },
  responses: { 200: { description: 'A page of keys', ...json(listOf(ApiKey, 'ApiKeyList')) } },
});

const rotate = operation({
  operationId: 'apiKey.rotate',
  method: 'post',
  path: '/api-keys/{id}/rotate',
  tags,
  summary: 'Rotate an API key',
  description: 'Issues a new secret, shown once. The old one keeps working for 24 hours unless `immediately` is true.',
  request: { params: KeyIdParam, body: { required: false, ...json(RotateApiKeyBody) } },
  responses: { 200: { description: 'The key with its new secret', ...json(ApiKeyWithSecret) } },
});

const disable = operation({
  operationId: 'apiKey.disable',
  method: 'post',
  path: '/api-keys/{id}/disable',
  tags,
  summary: 'Disable an API key',
  description: 'Requests with the key answer 401 (within 5 seconds on every replica) until it is enabled again.',
  request: { params: KeyIdParam },
  responses: { 200: { description: 'The disabled key', ...json(ApiKey) } },
});

const enable = operation({
  operationId: 'apiKey.enable',
  method: 'post',
  path: '/api-keys/{id}/enable',
  tags,
  summary: 'Enable an API key',
  description: 'Makes a disabled key work again. A deleted key cannot be enabled.',
  request: { params: KeyIdParam },
  responses: { 200: { description: 'The enabled key', ...json(ApiKey) } },
});

const remove = operation({
  operationId: 'apiKey.delete',
  method: 'delete',
  path: '/api-keys/{id}',
  tags,
  summary: 'Delete an API key',
  description: 'Final: the key stops working and cannot be enabled again.',
  request: { params: KeyIdParam },
  responses: { 204: { description: 'Deleted' } },
});

/** The six apiKey operations. */
export const apiKeyRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => {
    const key = await createApiKey(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json'));
    return c.json(key, 201);
  })
  .openapi(list, async (c) => c.json(await listApiKeys(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(rotate, async (c) => {
    const body = RotateApiKeyBody.parse((await c.req.text()) ? c.req.valid('json') : {});
    return c.json(await rotateApiKey(c.var.deps, c.var.orgId, c.req.valid('param').id, body), 200);
  })
  .openapi(disable, async (c) => c.json(await setApiKeyEnabled(c.var.deps, c.var.orgId, c.req.valid('param').id, false), 200))
  .openapi(enable, async (c) => c.json(await setApiKeyEnabled(c.var.deps, c.var.orgId, c.req.valid('param').id, true), 200))
  .openapi(remove, async (c) => {
    await deleteApiKey(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
