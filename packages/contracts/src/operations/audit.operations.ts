import { defineOperation, json } from '../operation.ts';
import { AuditEvent, AuditListQuery, listOf } from '../schemas.ts';

const tags = ['Audit log'];

/** The audit log's one operation, declared once: the API attaches its handler and the SDK calls it by `operationId`. */
export const auditOperations = {
  list: defineOperation({
    operationId: 'audit.list',
    method: 'get',
    path: '/audit-events',
    permission: 'full',
    idempotent: false,
    tags,
    summary: 'List audit events',
    description:
      'Who changed what, newest first: every change to API keys, members and invitations, webhooks, email domains, phone numbers, suppressions, topics, broadcasts and organization settings, through the API (`apiKey`), the dashboard (`user`) or the CLI (`cli`), with the client address. Ids only, never a secret. A `test` key sees only the changes test keys made (in an organization made for testing, every change). Kept `AUDIT_RETENTION_DAYS` (365 by default).',
    request: { query: AuditListQuery },
    responses: { 200: { description: 'A page of audit events', ...json(listOf(AuditEvent, 'AuditEventList')) } },
  }),
};
