import { OpenAPIHono } from '@hono/zod-openapi';
import { Contact, CreateSegmentBody, idParam, ListQuery, listOf, Segment, SegmentConditionSchema, SegmentWithCount, UpdateSegmentBody } from '@tidings/contracts';
import { createSegment, deleteSegment, getSegment, listSegmentContacts, listSegments, updateSegment } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Segments'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const SegmentIdParam = idParam('seg');

const create = operation({
  operationId: 'segment.create',
  method: 'post',
  path: '/segments',
  tags,
  summary: 'Create a segment',
  description: 'A named filter over contacts. A bad condition is 400 naming its path, such as `criteria.all.1.any.0.value`.',
  request: { body: { required: true, ...json(CreateSegmentBody) } },
  responses: { 201: { description: 'The new segment with its current contact count', ...json(SegmentWithCount) } },
});

const list = operation({
  operationId: 'segment.list',
  method: 'get',
  path: '/segments',
  tags,
  summary: 'List segments',
  description: 'Newest first. Counts are on segment.get.',
  request: { query: ListQuery },
  responses: { 200: { description: 'A page of segments', ...json(listOf(Segment, 'SegmentList')) } },
});

const get = operation({
  operationId: 'segment.get',
  method: 'get',
  path: '/segments/{id}',
  tags,
  summary: 'Get a segment',
  description: 'With `contactCount`: the contacts matching the criteria now.',
  request: { params: SegmentIdParam },
  responses: { 200: { description: 'The segment', ...json(SegmentWithCount) } },
});

const update = operation({
  operationId: 'segment.update',
  method: 'patch',
  path: '/segments/{id}',
  tags,
  summary: 'Update a segment',
  description: 'Name and/or criteria.',
  request: { params: SegmentIdParam, body: { required: true, ...json(UpdateSegmentBody) } },
  responses: { 200: { description: 'The updated segment', ...json(SegmentWithCount) } },
});

const remove = operation({
  operationId: 'segment.delete',
  method: 'delete',
  path: '/segments/{id}',
  tags,
  summary: 'Delete a segment',
  description: 'Removes the filter; contacts are untouched.',
  request: { params: SegmentIdParam },
  responses: { 204: { description: 'Deleted' } },
});

const listContacts = operation({
  operationId: 'segment.listContacts',
  method: 'get',
  path: '/segments/{id}/contacts',
  tags,
  summary: 'List the contacts in a segment',
  description: 'The contacts matching the criteria now, newest first; evaluated in the database.',
  request: { params: SegmentIdParam, query: ListQuery },
  responses: { 200: { description: 'A page of contacts', ...json(listOf(Contact, 'SegmentContactList')) } },
});

/** The six segment operations. */
export const segmentRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => c.json(await createSegment(c.var.deps, c.var.orgId, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listSegments(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getSegment(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(update, async (c) => c.json(await updateSegment(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(remove, async (c) => {
    await deleteSegment(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  })
  .openapi(listContacts, async (c) => c.json(await listSegmentContacts(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('query')), 200));

// SegmentCriteria refers to SegmentCondition by $ref only (the criteria are recursive), so register it by name.
segmentRoutes.openAPIRegistry.register('SegmentCondition', SegmentConditionSchema);
