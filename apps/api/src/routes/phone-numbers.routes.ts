import { OpenAPIHono } from '@hono/zod-openapi';
import {
  AvailablePhoneNumberList,
  ErrorBody,
  idParam,
  ListQuery,
  listOf,
  PhoneNumber,
  PurchasePhoneNumberBody,
  SearchPhoneNumbersQuery,
  UpdatePhoneNumberBody,
} from '@tidings/contracts';
import { getPhoneNumber, listPhoneNumbers, purchasePhoneNumber, releasePhoneNumber, searchAvailableNumbers, updatePhoneNumber } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { idempotent } from '../middleware/idempotency.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Phone numbers'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const NumberIdParam = idParam('pn');
/** Operations that call the phone number provider can also answer these. */
const providerResponses = {
  502: { description: 'INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration', ...json(ErrorBody) },
  503: { description: 'INTERNAL_SERVER_ERROR: the provider is unavailable; retry later', ...json(ErrorBody) },
};

const searchAvailable = operation({
  operationId: 'phoneNumber.searchAvailable',
  method: 'get',
  path: '/phone-numbers/available',
  tags,
  summary: 'Search numbers to buy',
  description: "The provider's inventory for the country, area code, digits and type asked (numbers already owned here are left out).",
  request: { query: SearchPhoneNumbersQuery },
  responses: { 200: { description: 'Numbers that can be purchased now', ...json(AvailablePhoneNumberList) }, ...providerResponses },
});

const purchase = operation({
  operationId: 'phoneNumber.purchase',
  method: 'post',
  path: '/phone-numbers',
  tags,
  summary: 'Buy a number',
  description:
    "Orders a number from a search. 409 when it is owned here already or the provider says it is no longer available. The organization's first number becomes its default. Accepts `Idempotency-Key`.",
  request: { body: { required: true, ...json(PurchasePhoneNumberBody) } },
  middleware: [idempotent],
  responses: { 201: { description: 'The number, now owned by this organization', ...json(PhoneNumber) }, ...providerResponses },
});

const list = operation({
  operationId: 'phoneNumber.list',
  method: 'get',
  path: '/phone-numbers',
  tags,
  summary: 'List owned numbers',
  description: 'Newest first.',
  request: { query: ListQuery },
  responses: { 200: { description: 'A page of numbers', ...json(listOf(PhoneNumber, 'PhoneNumberList')) } },
});

const get = operation({
  operationId: 'phoneNumber.get',
  method: 'get',
  path: '/phone-numbers/{id}',
  tags,
  summary: 'Get an owned number',
  description: 'Released numbers are not found.',
  request: { params: NumberIdParam },
  responses: { 200: { description: 'The number', ...json(PhoneNumber) } },
});

const update = operation({
  operationId: 'phoneNumber.update',
  method: 'patch',
  path: '/phone-numbers/{id}',
  tags,
  summary: 'Update a number',
  description: '`friendlyName`, and `isDefault`: at most one default per organization; making one the default unsets the previous one.',
  request: { params: NumberIdParam, body: { required: true, ...json(UpdatePhoneNumberBody) } },
  responses: { 200: { description: 'The number', ...json(PhoneNumber) }, ...providerResponses },
});

const release = operation({
  operationId: 'phoneNumber.release',
  method: 'delete',
  path: '/phone-numbers/{id}',
  tags,
  summary: 'Release a number',
  description: 'Gives it back at the provider. Afterwards it is not found and cannot send.',
  request: { params: NumberIdParam },
  responses: { 204: { description: 'Released' }, ...providerResponses },
});

/** The six phoneNumber operations. The search is registered before `{id}` so `available` is never taken for an id. */
export const phoneNumberRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(searchAvailable, async (c) => c.json(await searchAvailableNumbers(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('query')), 200))
  .openapi(purchase, async (c) => c.json(await purchasePhoneNumber(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listPhoneNumbers(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getPhoneNumber(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(update, async (c) => c.json(await updatePhoneNumber(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(release, async (c) => {
    await releasePhoneNumber(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
