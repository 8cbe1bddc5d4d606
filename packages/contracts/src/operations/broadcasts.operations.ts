import { defineOperation, json } from '../operation.ts';
import { Broadcast, BroadcastLinks, BroadcastListQuery, BroadcastRetry, BroadcastWithCounts, CreateBroadcastBody, idParam, listOf, SendBroadcastBody } from '../schemas.ts';

const tags = ['Broadcasts'];
const BroadcastIdParam = idParam('brd');

/** The eight broadcast operations, declared once: the API attaches its handlers to them and the SDK calls them by `operationId`. */
export const broadcastOperations = {
  create: defineOperation({
    operationId: 'broadcast.create',
    method: 'post',
    path: '/broadcasts',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Create a broadcast',
    description:
      "A draft that sends one template to every subscribed contact of a segment (or of the whole organization), each message rendered with `contact` and the shared `variables`. The template and segment must be this organization's (404 otherwise).",
    request: { body: { required: true, ...json(CreateBroadcastBody) } },
    responses: { 201: { description: 'The draft', ...json(Broadcast) } },
  }),
  list: defineOperation({
    operationId: 'broadcast.list',
    method: 'get',
    path: '/broadcasts',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List broadcasts',
    description: 'Newest first, optionally of one `status`. Counts are on broadcast.get.',
    request: { query: BroadcastListQuery },
    responses: { 200: { description: 'A page of broadcasts', ...json(listOf(Broadcast, 'BroadcastList')) } },
  }),
  get: defineOperation({
    operationId: 'broadcast.get',
    method: 'get',
    path: '/broadcasts/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Get a broadcast',
    description: 'With `counts` of its recipients and messages, read from the database now.',
    request: { params: BroadcastIdParam },
    responses: { 200: { description: 'The broadcast', ...json(BroadcastWithCounts) } },
  }),
  send: defineOperation({
    operationId: 'broadcast.send',
    method: 'post',
    path: '/broadcasts/{id}/send',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Send a broadcast',
    description:
      'A draft only (409 otherwise): 202 with `status: sending`, or `scheduled` when `scheduledAt` is in the future. The template version is fixed now (the latest, unless the draft named one): later template edits change nothing it sends. Recipients are fixed when sending starts; each contact gets at most one message. Every email carries `List-Unsubscribe` (one-click, RFC 8058).',
    request: { params: BroadcastIdParam, body: { required: false, ...json(SendBroadcastBody) } },
    responses: { 202: { description: 'The broadcast, scheduled or sending', ...json(Broadcast) } },
  }),
  cancel: defineOperation({
    operationId: 'broadcast.cancel',
    method: 'post',
    path: '/broadcasts/{id}/cancel',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Cancel a broadcast',
    description: 'While `scheduled` or `sending` (409 otherwise): nothing more is sent; messages not yet handed to a provider are canceled.',
    request: { params: BroadcastIdParam },
    responses: { 200: { description: 'The canceled broadcast', ...json(Broadcast) } },
  }),
  retryFailed: defineOperation({
    operationId: 'broadcast.retryFailed',
    method: 'post',
    path: '/broadcasts/{id}/retry-failed',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Retry the failed messages of a broadcast',
    description:
      "Its messages that ended `failed` for a reason that can pass (`PROVIDER_FAILED`, `PROVIDER_UNAVAILABLE`, `RENDER_FAILED`, `SENDER_REFUSED`, `INTERNAL_ERROR`; never `SUPPRESSED` or `BOUNCED`) are queued again as the same messages, one per contact still; a message whose rendering failed is rendered again first. Each message's history shows the retry (`failed`, then `queued`). A `sent` broadcast is `sending` again until they settle. Only a sending or sent broadcast (409 otherwise).",
    request: { params: BroadcastIdParam },
    responses: { 202: { description: 'How many messages were queued again', ...json(BroadcastRetry) } },
  }),
  links: defineOperation({
    operationId: 'broadcast.links',
    method: 'get',
    path: '/broadcasts/{id}/links',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Clicks on the links of a broadcast',
    description:
      "Each link clicked in the broadcast's emails, most clicked first (at most 1,000): clicks through Tidings' own click tracking and those the provider reported, each counted once.",
    request: { params: BroadcastIdParam },
    responses: { 200: { description: 'The clicked links', ...json(BroadcastLinks) } },
  }),
  remove: defineOperation({
    operationId: 'broadcast.delete',
    method: 'delete',
    path: '/broadcasts/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Delete a broadcast',
    description: 'Drafts only (409 otherwise).',
    request: { params: BroadcastIdParam },
    responses: { 204: { description: 'Deleted' } },
  }),
};
