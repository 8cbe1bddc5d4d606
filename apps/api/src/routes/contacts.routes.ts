import { OpenAPIHono } from '@hono/zod-openapi';
import {
  BulkCreateContactsBody,
  BulkCreateContactsResult,
  Contact,
  ContactListQuery,
  CreateContactBody,
  idParam,
  listOf,
  UpdateContactBody,
} from '@tidings/contracts';
import { bulkCreateContacts, createContact, deleteContact, getContact, listContacts, updateContact } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { idempotent } from '../middleware/idempotency.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Contacts'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const ContactIdParam = idParam('con');

const create = operation({
  operationId: 'contact.create',
  method: 'post',
  path: '/contacts',
  tags,
  summary: 'Create a contact',
  description: 'Needs `email` or `phone`. Another contact of the organization with the same email or phone is 409. Accepts `Idempotency-Key`.',
  middleware: [idempotent],
  request: { body: { required: true, ...json(CreateContactBody) } },
  responses: { 201: { description: 'The new contact', ...json(Contact) } },
});

const list = operation({
  operationId: 'contact.list',
  method: 'get',
  path: '/contacts',
  tags,
  summary: 'List contacts',
  description: 'Newest first, filtered by any of the query parameters together.',
  request: { query: ContactListQuery },
  responses: { 200: { description: 'A page of contacts', ...json(listOf(Contact, 'ContactList')) } },
});

const get = operation({
  operationId: 'contact.get',
  method: 'get',
  path: '/contacts/{id}',
  tags,
  summary: 'Get a contact',
  description: 'One contact of this organization.',
  request: { params: ContactIdParam },
  responses: { 200: { description: 'The contact', ...json(Contact) } },
});

const update = operation({
  operationId: 'contact.update',
  method: 'patch',
  path: '/contacts/{id}',
  tags,
  summary: 'Update a contact',
  description: 'Partial update. `attributes` merges key by key (`null` removes a key). `emailSubscribed`/`smsSubscribed` false suppresses the address for sending.',
  request: { params: ContactIdParam, body: { required: true, ...json(UpdateContactBody) } },
  responses: { 200: { description: 'The updated contact', ...json(Contact) } },
});

const remove = operation({
  operationId: 'contact.delete',
  method: 'delete',
  path: '/contacts/{id}',
  tags,
  summary: 'Delete a contact',
  description: 'Messages already sent to the contact keep their `contactId`; an unsubscribe stays in force for the address.',
  request: { params: ContactIdParam },
  responses: { 204: { description: 'Deleted' } },
});

const bulkCreate = operation({
  operationId: 'contact.bulkCreate',
  method: 'post',
  path: '/contacts/bulk',
  tags,
  summary: 'Create up to 1,000 contacts',
  description:
    'Each row as for contact.create. A row that is invalid, repeats an email or phone of an earlier row, or matches an existing contact is ' +
    'reported in `errors` by its index; the other rows are created. Accepts `Idempotency-Key`.',
  middleware: [idempotent],
  request: { body: { required: true, ...json(BulkCreateContactsBody) } },
  responses: { 200: { description: 'The created contacts, in request order, and the refused rows', ...json(BulkCreateContactsResult) } },
});

/** The six contact operations. */
export const contactRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => c.json(await createContact(c.var.deps, c.var.orgId, c.req.valid('json')), 201))
  .openapi(bulkCreate, async (c) => c.json(await bulkCreateContacts(c.var.deps, c.var.orgId, c.req.valid('json').contacts), 200))
  .openapi(list, async (c) => c.json(await listContacts(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getContact(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(update, async (c) => c.json(await updateContact(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(remove, async (c) => {
    await deleteContact(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
