import { defineOperation, json } from '../operation.ts';
import { z } from '../z.ts';
import {
  BulkCreateContactsBody,
  BulkCreateContactsResult,
  Contact,
  ContactExportQuery,
  ContactListQuery,
  CreateContactBody,
  idParam,
  listOf,
  UpdateContactBody,
} from '../schemas.ts';

const tags = ['Contacts'];
const ContactIdParam = idParam('con');

/** The contact operations. */
export const contactOperations = {
  create: defineOperation({
    operationId: 'contact.create',
    method: 'post',
    path: '/contacts',
    permission: 'full',
    idempotent: true,
    errors: { 409: 'email: another contact in this organization has this email' },
    changesShared: true,
    tags,
    summary: 'Create a contact',
    description: 'Needs `email` or `phone`. Another contact of the organization with the same email or phone is 409. Accepts `Idempotency-Key`.',
    request: { body: { required: true, ...json(CreateContactBody) } },
    responses: { 201: { description: 'The new contact', ...json(Contact) } },
  }),
  list: defineOperation({
    operationId: 'contact.list',
    method: 'get',
    path: '/contacts',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List contacts',
    description: 'Newest first, filtered by any of the query parameters together.',
    request: { query: ContactListQuery },
    responses: { 200: { description: 'A page of contacts', ...json(listOf(Contact, 'ContactList')) } },
  }),
  export: defineOperation({
    operationId: 'contact.export',
    method: 'get',
    path: '/contacts/export',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Export contacts as CSV',
    description:
      "The contacts matching contact.list's filters as CSV (`text/csv`, RFC 4180, newest first), streamed: any number of contacts in constant memory. Columns: `id`, `email`, `phone`, `firstName`, `lastName`, `emailSubscribed`, `smsSubscribed`, `createdAt`, `updatedAt`, then `attributes.<key>` for each attribute key any exported contact has (strings as they are, other values as JSON). An unknown `segmentId` is 404.",
    request: { query: ContactExportQuery },
    responses: {
      200: {
        description: 'The CSV',
        content: {
          'text/csv': { schema: z.string().openapi({ example: 'id,email,phone,firstName,lastName,emailSubscribed,smsSubscribed,createdAt,updatedAt,attributes.plan\r\n' }) },
        },
      },
    },
  }),
  get: defineOperation({
    operationId: 'contact.get',
    method: 'get',
    path: '/contacts/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Get a contact',
    description: 'One contact of this organization.',
    request: { params: ContactIdParam },
    responses: { 200: { description: 'The contact', ...json(Contact) } },
  }),
  update: defineOperation({
    operationId: 'contact.update',
    method: 'patch',
    path: '/contacts/{id}',
    permission: 'full',
    idempotent: false,
    errors: { 409: 'phone: another contact in this organization has this phone' },
    changesShared: true,
    tags,
    summary: 'Update a contact',
    description: 'Partial update. `attributes` merges key by key (`null` removes a key). `emailSubscribed`/`smsSubscribed` false suppresses the address for sending.',
    request: { params: ContactIdParam, body: { required: true, ...json(UpdateContactBody) } },
    responses: { 200: { description: 'The updated contact', ...json(Contact) } },
  }),
  remove: defineOperation({
    operationId: 'contact.delete',
    method: 'delete',
    path: '/contacts/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Delete a contact',
    description: 'Messages already sent to the contact keep their `contactId`; an unsubscribe stays in force for the address.',
    request: { params: ContactIdParam },
    responses: { 204: { description: 'Deleted' } },
  }),
  bulkCreate: defineOperation({
    operationId: 'contact.bulkCreate',
    method: 'post',
    path: '/contacts/bulk',
    permission: 'full',
    idempotent: true,
    changesShared: true,
    tags,
    summary: 'Create up to 1,000 contacts',
    description:
      'Each row as for contact.create. A row that is invalid, repeats an email or phone of an earlier row, or matches an existing contact is ' +
      'reported in `errors` by its index; the other rows are created. Accepts `Idempotency-Key`.',
    request: { body: { required: true, ...json(BulkCreateContactsBody) } },
    responses: { 200: { description: 'The created contacts, in request order, and the refused rows', ...json(BulkCreateContactsResult) } },
  }),
};
