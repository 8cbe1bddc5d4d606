import { OpenAPIHono } from '@hono/zod-openapi';
import { Broadcast, BroadcastListQuery, BroadcastWithCounts, CreateBroadcastBody, idParam, listOf, SendBroadcastBody } from '@tidings/contracts';
import { cancelBroadcast, createBroadcast, deleteBroadcast, getBroadcast, listBroadcasts, sendBroadcast } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Broadcasts'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const BroadcastIdParam = idParam('brd');

const create = operation({
  operationId: 'broadcast.create',
  method: 'post',
  path: '/broadcasts',
  tags,
  summary: 'Create a broadcast',
  description:
    'A draft that sends one template to every subscribed contact of a segment (or of the whole organization), each message rendered with `contact` and the shared `variables`. The template and segment must be this organization\'s (404 otherwise).',
  request: { body: { required: true, ...json(CreateBroadcastBody) } },
  responses: { 201: { description: 'The draft', ...json(Broadcast) } },
});

const list = operation({
  operationId: 'broadcast.list',
  method: 'get',
  path: '/broadcasts',
  tags,
  summary: 'List broadcasts',
  description: 'Newest first, optionally of one `status`. Counts are on broadcast.get.',
  request: { query: BroadcastListQuery },
  responses: { 200: { description: 'A page of broadcasts', ...json(listOf(Broadcast, 'BroadcastList')) } },
});

const get = operation({
  operationId: 'broadcast.get',
  method: 'get',
  path: '/broadcasts/{id}',
  tags,
  summary: 'Get a broadcast',
  description: 'With `counts` of its recipients and messages, read from the database now.',
  request: { params: BroadcastIdParam },
  responses: { 200: { description: 'The broadcast', ...json(BroadcastWithCounts) } },
});

const send = operation({
  operationId: 'broadcast.send',
  method: 'post',
  path: '/broadcasts/{id}/send',
  tags,
  summary: 'Send a broadcast',
  description:
    'A draft only (409 otherwise): 202 with `status: sending`, or `scheduled` when `scheduledAt` is in the future. Recipients are fixed when sending starts; each contact gets at most one message. Every email carries `List-Unsubscribe` (one-click, RFC 8058).',
  request: { params: BroadcastIdParam, body: { required: false, ...json(SendBroadcastBody) } },
  responses: { 202: { description: 'The broadcast, scheduled or sending', ...json(Broadcast) } },
});

const cancel = operation({
  operationId: 'broadcast.cancel',
  method: 'post',
  path: '/broadcasts/{id}/cancel',
  tags,
  summary: 'Cancel a broadcast',
  description: 'While `scheduled` or `sending` (409 otherwise): nothing more is sent; messages not yet handed to a provider are canceled.',
  request: { params: BroadcastIdParam },
  responses: { 200: { description: 'The canceled broadcast', ...json(Broadcast) } },
});

const remove = operation({
  operationId: 'broadcast.delete',
  method: 'delete',
  path: '/broadcasts/{id}',
  tags,
  summary: 'Delete a broadcast',
  description: 'Drafts only (409 otherwise).',
  request: { params: BroadcastIdParam },
  responses: { 204: { description: 'Deleted' } },
});

/** The six broadcast operations. */
export const broadcastRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => c.json(await createBroadcast(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listBroadcasts(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getBroadcast(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(send, async (c) => c.json(await sendBroadcast(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json') ?? {}), 202))
  .openapi(cancel, async (c) => c.json(await cancelBroadcast(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(remove, async (c) => {
    await deleteBroadcast(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
