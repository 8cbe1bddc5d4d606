import { OpenAPIHono } from '@hono/zod-openapi';
import { AddEmailDomainBody, EmailDomain, ErrorBody, idParam, ListQuery, listOf, SetDefaultSenderBody } from '@tidings/contracts';
import { addEmailDomain, deleteEmailDomain, getEmailDomain, listEmailDomains, setDefaultSender, verifyEmailDomain } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Email domains'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const DomainIdParam = idParam('dom');
/** Operations that call the email provider can also answer these. */
const providerResponses = {
  502: { description: 'INTERNAL_SERVER_ERROR: the email provider refused; an operator should check its configuration', ...json(ErrorBody) },
  503: { description: 'INTERNAL_SERVER_ERROR: the email provider is unavailable; retry later', ...json(ErrorBody) },
};

const add = operation({
  operationId: 'emailDomain.add',
  method: 'post',
  path: '/email-domains',
  tags,
  summary: 'Add a sending domain',
  description:
    'Provisions the domain at the email provider and returns the DNS records to publish (return-path MX and SPF, DKIM, DMARC), all `pending`. 409 when the organization already has it.',
  request: { body: { required: true, ...json(AddEmailDomainBody) } },
  responses: { 201: { description: 'The domain, pending verification', ...json(EmailDomain) }, ...providerResponses },
});

const list = operation({
  operationId: 'emailDomain.list',
  method: 'get',
  path: '/email-domains',
  tags,
  summary: 'List sending domains',
  description: 'Newest first.',
  request: { query: ListQuery },
  responses: { 200: { description: 'A page of domains', ...json(listOf(EmailDomain, 'EmailDomainList')) } },
});

const get = operation({
  operationId: 'emailDomain.get',
  method: 'get',
  path: '/email-domains/{id}',
  tags,
  summary: 'Get a sending domain',
  description: 'With the DNS status of each record as last checked.',
  request: { params: DomainIdParam },
  responses: { 200: { description: 'The domain', ...json(EmailDomain) } },
});

const verify = operation({
  operationId: 'emailDomain.verify',
  method: 'post',
  path: '/email-domains/{id}/verify',
  tags,
  summary: 'Check DNS now',
  description:
    'Looks every record up in DNS now. The domain becomes `verified` when every required record matches, `failed` when still not verified 72 hours after it was added; otherwise it stays as it was. Pending domains are also re-checked periodically.',
  request: { params: DomainIdParam },
  responses: { 200: { description: 'The domain with fresh statuses', ...json(EmailDomain) } },
});

const setDefault = operation({
  operationId: 'emailDomain.setDefault',
  method: 'put',
  path: '/email-domains/{id}/default-sender',
  tags,
  summary: 'Set the default sender',
  description: 'The sender message.send uses when `from` is absent. `fromAddress` must be an address on this domain.',
  request: { params: DomainIdParam, body: { required: true, ...json(SetDefaultSenderBody) } },
  responses: { 200: { description: 'The domain with its default sender', ...json(EmailDomain) } },
});

const remove = operation({
  operationId: 'emailDomain.delete',
  method: 'delete',
  path: '/email-domains/{id}',
  tags,
  summary: 'Delete a sending domain',
  description: 'Removes it at the provider too; sending from it afterwards is refused.',
  request: { params: DomainIdParam },
  responses: { 204: { description: 'Deleted' }, ...providerResponses },
});

/** The six emailDomain operations. */
export const emailDomainRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(add, async (c) => c.json(await addEmailDomain(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await listEmailDomains(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getEmailDomain(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(verify, async (c) => c.json(await verifyEmailDomain(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(setDefault, async (c) => c.json(await setDefaultSender(c.var.deps, c.var.orgId, c.req.valid('param').id, c.req.valid('json')), 200))
  .openapi(remove, async (c) => {
    await deleteEmailDomain(c.var.deps, c.var.orgId, c.req.valid('param').id);
    return c.body(null, 204);
  });
