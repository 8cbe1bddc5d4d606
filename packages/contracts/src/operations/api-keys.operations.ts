import { defineOperation, json } from '../operation.ts';
import { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, idParam, ListQuery, listOf, RotateApiKeyBody } from '../schemas.ts';

const tags = ['API keys'];
const KeyIdParam = idParam('key');

/** The six apiKey operations. */
export const apiKeyOperations = {
  create: defineOperation({
    operationId: 'apiKey.create',
    method: 'post',
    path: '/api-keys',
    permission: 'full',
    idempotent: false,
    errors: { 409: 'An organization may have at most 100 API keys; delete one it no longer uses first' },
    tags,
    summary: 'Create an API key',
    description:
      'Creates a key for this organization. The full key is in this response only; store it now. A `test` key creates only `test` keys (403 for `mode: live`), and an organization created for testing gets live keys only once an operator allows them (403). An organization has at most 100 keys that are not deleted (`API_KEYS_PER_ORG_MAX`): past it, 409.',
    request: { body: { required: true, ...json(CreateApiKeyBody) } },
    responses: { 201: { description: 'The new key, with its secret', ...json(ApiKeyWithSecret) } },
  }),
  list: defineOperation({
    operationId: 'apiKey.list',
    method: 'get',
    path: '/api-keys',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List API keys',
    description: 'Keys that are not deleted, newest first; a `test` key sees only `test` keys. Never the full key: `prefix` and `lastUsedAt` tell them apart.',
    request: { query: ListQuery },
    responses: { 200: { description: 'A page of keys', ...json(listOf(ApiKey, 'ApiKeyList')) } },
  }),
  rotate: defineOperation({
    operationId: 'apiKey.rotate',
    method: 'post',
    path: '/api-keys/{id}/rotate',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Rotate an API key',
    description: 'Issues a new secret, shown once. The old one keeps working for 24 hours unless `immediately` is true. A `live` key is 404 to a `test` key.',
    request: { params: KeyIdParam, body: { required: false, ...json(RotateApiKeyBody) } },
    responses: { 200: { description: 'The key with its new secret', ...json(ApiKeyWithSecret) } },
  }),
  disable: defineOperation({
    operationId: 'apiKey.disable',
    method: 'post',
    path: '/api-keys/{id}/disable',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Disable an API key',
    description: 'Requests with the key answer 401 at once on every replica until it is enabled again. A `live` key is 404 to a `test` key.',
    request: { params: KeyIdParam },
    responses: { 200: { description: 'The disabled key', ...json(ApiKey) } },
  }),
  enable: defineOperation({
    operationId: 'apiKey.enable',
    method: 'post',
    path: '/api-keys/{id}/enable',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Enable an API key',
    description: 'Makes a disabled key work again. A deleted key cannot be enabled.',
    request: { params: KeyIdParam },
    responses: { 200: { description: 'The enabled key', ...json(ApiKey) } },
  }),
  remove: defineOperation({
    operationId: 'apiKey.delete',
    method: 'delete',
    path: '/api-keys/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Delete an API key',
    description: 'Final: the key stops working and cannot be enabled again.',
    request: { params: KeyIdParam },
    responses: { 204: { description: 'Deleted' } },
  }),
};
