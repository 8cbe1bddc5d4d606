import { defineOperation, json } from '../operation.ts';
import { CreateSuppressionBody, idParam, listOf, Suppression, SuppressionListQuery } from '../schemas.ts';

const tags = ['Suppressions'];

/** The three suppression operations, declared once: the API attaches its handlers to them and the SDK calls them by `operationId`. */
export const suppressionOperations = {
  list: defineOperation({
    operationId: 'suppression.list',
    method: 'get',
    path: '/suppressions',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List suppressed recipients',
    description:
      "Addresses and numbers no message is sent to (a send to one ends `failed` / `SUPPRESSED`), newest first: the list of the calling key's mode. A live send obeys the live list; a test send both.",
    request: { query: SuppressionListQuery },
    responses: { 200: { description: 'A page of suppressions', ...json(listOf(Suppression, 'SuppressionList')) } },
  }),
  create: defineOperation({
    operationId: 'suppression.create',
    method: 'post',
    path: '/suppressions',
    permission: 'full',
    idempotent: false,
    errors: { 409: 'ada@example.com is already suppressed' },
    tags,
    summary: 'Suppress a recipient',
    description:
      "Blocks sends to the address or number (reason `manual`) on the calling key's mode's list, compared the way sends compare it. 409 when it is already on that list.",
    request: { body: { required: true, ...json(CreateSuppressionBody) } },
    responses: { 201: { description: 'The suppression', ...json(Suppression) } },
  }),
  remove: defineOperation({
    operationId: 'suppression.delete',
    method: 'delete',
    path: '/suppressions/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Lift a suppression',
    description:
      "The next send to the recipient goes out again (a bounced address can be tried again). Contacts' subscription flags stay as they are. Another mode's suppression is 404: a test key never lifts a live one.",
    request: { params: idParam('sup') },
    responses: { 204: { description: 'Lifted' } },
  }),
};
