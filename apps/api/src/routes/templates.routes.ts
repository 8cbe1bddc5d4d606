import { OpenAPIHono } from '@hono/zod-openapi';
import {
  CreateTemplateBody,
  idParam,
  listOf,
  PreviewTemplateBody,
  Template,
  TemplateGetQuery,
  TemplateListQuery,
  TemplatePreview,
  TemplateVersionsQuery,
  UpdateTemplateBody,
} from '@tidings/contracts';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, listTemplateVersions, previewTemplate, updateTemplate } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Templates'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const TemplateIdParam = idParam('tpl');

const create = operation({
  operationId: 'template.create',
  method: 'post',
  path: '/templates',
  tags,
  summary: 'Create a template',
  description:
    'Version 1. Email templates have `subject` and `html` and/or `text`; SMS templates a `body`. Placeholders are Liquid ' +
    '(`{{ firstName }}`), HTML-escaped in `html` only; `variables` lists the names the content uses.',
  request: { body: { required: true, ...json(CreateTemplateBody) } },
  responses: { 201: { description: 'The new template', ...json(Template) } },
});

const list = operation({
  operationId: 'template.list',
  method: 'get',
  path: '/templates',
  tags,
  summary: 'List templates',
  description: 'The latest version of each, newest first. Deleted templates only with `includeDeleted=true`.',
  request: { query: TemplateListQuery },
  responses: { 200: { description: 'A page of templates', ...json(listOf(Template, 'TemplateList')) } },
});

const get = operation({
  operationId: 'template.get',
  method: 'get',
  path: '/templates/{id}',
  tags,
  summary: 'Get a template',
  description: 'The latest version, or `?version=N`. A deleted template is 404 unless `includeDeleted=true`.',
  request: { params: TemplateIdParam, query: TemplateGetQuery },
  responses: { 200: { description: 'The template at that version', ...json(Template) } },
});

const update = operation({
  operationId: 'template.update',
  method: 'patch',
  path: '/templates/{id}',
  tags,
  summary: 'Update a template',
  description: 'Writes version N+1; older versions stay readable (`?version=N`) and usable (`templateVersion` on send).',
  request: { params: TemplateIdParam, body: { required: true, ...json(UpdateTemplateBody) } },
  responses: { 200: { description: 'The new version', ...json(Template) } },
});

const remove = operation({
  operationId: 'template.delete',
  method: 'delete',
  path: '/templates/{id}',
  tags,
  summary: 'Delete a template',
  description: 'Soft delete: get and list hide it unless `includeDeleted=true`, and sending with it is 400.',
  request: { params: TemplateIdParam },
  responses: { 204: { description: 'Deleted' } },
});

const listVersions = operation({
  operationId: 'template.listVersions',
  method: 'get',
  path: '/templates/{id}/versions',
  tags,
  summary: 'List the versions of a template',
  description: 'Every version, newest first.',
  request: { params: TemplateIdParam, query: TemplateVersionsQuery },
  responses: { 200: { description: 'A page of versions', ...json(listOf(Template, 'TemplateVersionList')) } },
});

const preview = operation({
  operationId: 'template.preview',
  method: 'post',
  path: '/templates/{id}/preview',
  tags,
  summary: 'Render a template without sending',
  description: 'Renders the latest version (or `version`) with `variables`; a missing variable is 400 naming it. SMS previews count segments.',
  request: { params: TemplateIdParam, body: { required: true, ...json(PreviewTemplateBody) } },
  responses: { 200: { description: 'The rendered content', ...json(TemplatePreview) } },
});

/** The seven template operations. */
export const templateRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(create, async (c) => c.json(await createTemplate(c.var.deps, c.var.orgId, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listTemplates(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getTemplate(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('query')), 200))
  .openapi(update, async (c) => c.json(await updateTemplate(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(remove, async (c) => {
    await deleteTemplate(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  })
  .openapi(listVersions, async (c) =>
    c.json(await listTemplateVersions(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('query')), 200),
  )
  .openapi(preview, async (c) => c.json(await previewTemplate(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200));
