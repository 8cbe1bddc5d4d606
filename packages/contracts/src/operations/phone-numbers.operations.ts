import { defineOperation, json } from '../operation.ts';
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
} from '../schemas.ts';

const tags = ['Phone numbers'];
const NumberIdParam = idParam('pn');
/** Operations that call the phone number provider can also answer these. */
const providerResponses = {
  502: { description: 'INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration', ...json(ErrorBody) },
  503: { description: 'INTERNAL_SERVER_ERROR: the provider is unavailable; retry later', ...json(ErrorBody) },
};

/** The six phoneNumber operations. */
export const phoneNumberOperations = {
  searchAvailable: defineOperation({
    operationId: 'phoneNumber.searchAvailable',
    method: 'get',
    path: '/phone-numbers/available',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Search numbers to buy',
    description: "The provider's inventory for the country, area code, digits and type asked (numbers already owned here are left out).",
    request: { query: SearchPhoneNumbersQuery },
    responses: { 200: { description: 'Numbers that can be purchased now', ...json(AvailablePhoneNumberList) }, ...providerResponses },
  }),
  purchase: defineOperation({
    operationId: 'phoneNumber.purchase',
    method: 'post',
    path: '/phone-numbers',
    permission: 'full',
    idempotent: true,
    errors: { 409: 'Phone number +14155550123 is no longer available; search again and pick another' },
    changesShared: true,
    tags,
    summary: 'Buy a number',
    description:
      "Orders a number from a search. 409 when it is owned here already or the provider says it is no longer available. The organization's first number becomes its default. Accepts `Idempotency-Key`.",
    request: { body: { required: true, ...json(PurchasePhoneNumberBody) } },
    responses: { 201: { description: 'The number, now owned by this organization', ...json(PhoneNumber) }, ...providerResponses },
  }),
  list: defineOperation({
    operationId: 'phoneNumber.list',
    method: 'get',
    path: '/phone-numbers',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List owned numbers',
    description: 'Newest first.',
    request: { query: ListQuery },
    responses: { 200: { description: 'A page of numbers', ...json(listOf(PhoneNumber, 'PhoneNumberList')) } },
  }),
  get: defineOperation({
    operationId: 'phoneNumber.get',
    method: 'get',
    path: '/phone-numbers/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Get an owned number',
    description: 'Released numbers are not found.',
    request: { params: NumberIdParam },
    responses: { 200: { description: 'The number', ...json(PhoneNumber) } },
  }),
  update: defineOperation({
    operationId: 'phoneNumber.update',
    method: 'patch',
    path: '/phone-numbers/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Update a number',
    description: '`friendlyName`, and `isDefault`: at most one default per organization; making one the default unsets the previous one.',
    request: { params: NumberIdParam, body: { required: true, ...json(UpdatePhoneNumberBody) } },
    responses: { 200: { description: 'The number', ...json(PhoneNumber) }, ...providerResponses },
  }),
  release: defineOperation({
    operationId: 'phoneNumber.release',
    method: 'delete',
    path: '/phone-numbers/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Release a number',
    description: 'Gives it back at the provider. Afterwards it is not found and cannot send.',
    request: { params: NumberIdParam },
    responses: { 204: { description: 'Released' }, ...providerResponses },
  }),
};
