import { defineOperation, json } from '../operation.ts';
import { AddEmailDomainBody, EmailDomain, ErrorBody, idParam, ListQuery, listOf, SetDefaultSenderBody, UpdateEmailDomainBody } from '../schemas.ts';

const tags = ['Email domains'];
const DomainIdParam = idParam('dom');
/** Operations that call the email provider can also answer these. */
const providerResponses = {
  502: { description: 'INTERNAL_SERVER_ERROR: the email provider refused; an operator should check its configuration', ...json(ErrorBody) },
  503: { description: 'INTERNAL_SERVER_ERROR: the email provider is unavailable; retry later', ...json(ErrorBody) },
};

/** The seven emailDomain operations. */
export const emailDomainOperations = {
  add: defineOperation({
    operationId: 'emailDomain.add',
    method: 'post',
    path: '/email-domains',
    permission: 'full',
    idempotent: false,
    errors: { 409: 'Email domain example.com is already added to this organization' },
    changesShared: true,
    tags,
    summary: 'Add a sending domain',
    description:
      'Provisions the domain at the email provider and returns the DNS records to publish (return-path MX and SPF, DKIM, DMARC), all `pending`. 409 when the organization already has it.',
    request: { body: { required: true, ...json(AddEmailDomainBody) } },
    responses: { 201: { description: 'The domain, pending verification', ...json(EmailDomain) }, ...providerResponses },
  }),
  list: defineOperation({
    operationId: 'emailDomain.list',
    method: 'get',
    path: '/email-domains',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List sending domains',
    description: 'Newest first.',
    request: { query: ListQuery },
    responses: { 200: { description: 'A page of domains', ...json(listOf(EmailDomain, 'EmailDomainList')) } },
  }),
  get: defineOperation({
    operationId: 'emailDomain.get',
    method: 'get',
    path: '/email-domains/{id}',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'Get a sending domain',
    description: 'With the DNS status of each record as last checked.',
    request: { params: DomainIdParam },
    responses: { 200: { description: 'The domain', ...json(EmailDomain) } },
  }),
  verify: defineOperation({
    operationId: 'emailDomain.verify',
    method: 'post',
    path: '/email-domains/{id}/verify',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Check DNS now',
    description:
      'Looks every record up in DNS now. The domain becomes `verified` when every required record matches, `failed` when still not verified 72 hours after it was added; otherwise it stays as it was. Pending domains are also re-checked periodically.',
    request: { params: DomainIdParam },
    responses: { 200: { description: 'The domain with fresh statuses', ...json(EmailDomain) } },
  }),
  setDefault: defineOperation({
    operationId: 'emailDomain.setDefault',
    method: 'put',
    path: '/email-domains/{id}/default-sender',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Set the default sender',
    description: 'The sender message.send uses when `from` is absent. `fromAddress` must be an address on this domain.',
    request: { params: DomainIdParam, body: { required: true, ...json(SetDefaultSenderBody) } },
    responses: { 200: { description: 'The domain with its default sender', ...json(EmailDomain) } },
  }),
  update: defineOperation({
    operationId: 'emailDomain.update',
    method: 'patch',
    path: '/email-domains/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Update a sending domain',
    description:
      "`openTracking` and `clickTracking`: Tidings' own open pixel and click redirect in the html of email sent from this domain afterwards (default off; a send's `tracking` overrides them).",
    request: { params: DomainIdParam, body: { required: true, ...json(UpdateEmailDomainBody) } },
    responses: { 200: { description: 'The domain', ...json(EmailDomain) } },
  }),
  remove: defineOperation({
    operationId: 'emailDomain.delete',
    method: 'delete',
    path: '/email-domains/{id}',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags,
    summary: 'Delete a sending domain',
    description: 'Removes it at the provider too; sending from it afterwards is refused.',
    request: { params: DomainIdParam },
    responses: { 204: { description: 'Deleted' }, ...providerResponses },
  }),
};
