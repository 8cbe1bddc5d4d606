import { StorableDateTime, storableText } from './common.ts';
import { MESSAGE_LIMITS } from './messages.ts';
import { TemplateVariables } from './templates.ts';
import { z } from './z.ts';

// Resend's request and response shapes (snake_case), for apps moving over with the official SDK. The core maps
// them onto message.send's body; every rule of that body still holds.

const Address = storableText().trim().min(1).max(MESSAGE_LIMITS.address);
const OneOrMore = (max: number) =>
  z.union([Address, z.array(Address).min(1).max(max)], { error: (issue) => (issue.input === undefined ? 'required' : 'must be an address or an array of addresses') });
/** Resend allows ASCII letters, digits, underscores and dashes in a tag's name and value. */
const TagText = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_-]+$/, 'may contain only ASCII letters, digits, underscores and dashes');

export const ResendAttachment = z
  .strictObject({
    filename: storableText().optional().openapi({ description: 'Derived from `path` when absent.' }),
    content: z.string().optional().openapi({ format: 'byte', description: 'The file, base64-encoded.' }),
    path: storableText().optional().openapi({ description: 'An https URL fetched at send time.' }),
    content_type: storableText().optional(),
    content_id: storableText().optional().openapi({ description: 'Makes it an inline image, referenced in `html` as `cid:...`.' }),
  })
  .openapi('ResendAttachment');
export type ResendAttachment = z.infer<typeof ResendAttachment>;

export const ResendTag = z.strictObject({ name: TagText, value: TagText }).openapi('ResendTag', {
  description: 'Kept as the message tag `name:value` (message.list filters on it with `tag`).',
});
export type ResendTag = z.infer<typeof ResendTag>;

export const ResendSendEmailBody = z
  .strictObject({
    from: storableText().trim().min(1).max(MESSAGE_LIMITS.address).optional().openapi({ description: 'Absent: the default sender of the verified domain.' }),
    to: OneOrMore(MESSAGE_LIMITS.recipients).openapi({
      description: 'One address, or several as an array: one message to all of them (`to`, `cc` and `bcc` together at most 50).',
    }),
    subject: storableText().optional(),
    cc: OneOrMore(MESSAGE_LIMITS.recipients).optional(),
    bcc: OneOrMore(MESSAGE_LIMITS.recipients).optional(),
    reply_to: OneOrMore(MESSAGE_LIMITS.replyTo).optional(),
    html: storableText().optional(),
    text: storableText().optional(),
    headers: z.record(storableText(), storableText()).optional(),
    attachments: z.array(ResendAttachment).optional(),
    tags: z.array(ResendTag).optional(),
    scheduled_at: StorableDateTime.optional().openapi({
      description: `An ISO 8601 time up to ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead (natural language such as "in 1 hour" is not understood).`,
    }),
    template: z
      .strictObject({ id: storableText().min(1).max(64), variables: TemplateVariables.optional() })
      .optional()
      .openapi({ description: 'A Tidings template (`tpl_...`) and its variables, instead of `subject`, `html` and `text`.' }),
  })
  .openapi('ResendSendEmailBody', {
    example: {
      from: 'Acme <hello@example.com>',
      to: ['ada@example.com'],
      cc: 'billing@example.com',
      reply_to: 'support@example.com',
      subject: 'Your invoice',
      html: '<p>Your invoice is attached.</p>',
      text: 'Your invoice is attached.',
      headers: { 'X-Entity-Ref-ID': 'invoice-1042' },
      attachments: [{ filename: 'invoice-1042.txt', content: 'SW52b2ljZSAxMDQy', content_type: 'text/plain' }],
      tags: [{ name: 'category', value: 'billing' }],
    },
  });
export type ResendSendEmailBody = z.infer<typeof ResendSendEmailBody>;

// Items are validated one by one, so `x-batch-validation: permissive` can accept the valid ones.
export const ResendBatchBody = z
  .array(z.record(z.string(), z.unknown()).openapi({ allOf: [{ $ref: '#/components/schemas/ResendSendEmailBody' }] }))
  .min(1)
  .max(100)
  .openapi('ResendBatchBody', {
    example: [
      { from: 'Acme <hello@example.com>', to: 'ada@example.com', subject: 'Welcome', text: 'Welcome aboard, Ada.' },
      { from: 'Acme <hello@example.com>', to: ['grace@example.com'], subject: 'Welcome', text: 'Welcome aboard, Grace.' },
    ],
  });
export type ResendBatchBody = z.infer<typeof ResendBatchBody>;

export const ResendBatchHeaders = z.object({
  'x-batch-validation': z.enum(['strict', 'permissive']).optional().openapi({
    description: '`strict` (the default): one invalid email refuses the whole batch. `permissive`: the valid ones are sent, `errors` lists the others.',
  }),
});

export const ResendUpdateEmailBody = z
  .strictObject({ scheduled_at: StorableDateTime.openapi({ description: `The new time, ISO 8601, up to ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead.` }) })
  .openapi('ResendUpdateEmailBody', { example: { scheduled_at: '2026-12-01T09:00:00.000Z' } });
export type ResendUpdateEmailBody = z.infer<typeof ResendUpdateEmailBody>;

const exampleId = 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V';

export const ResendEmailId = z.object({ id: z.string() }).openapi('ResendEmailId', { example: { id: exampleId } });
export type ResendEmailId = z.infer<typeof ResendEmailId>;

export const ResendEmailRef = z.object({ object: z.literal('email'), id: z.string() }).openapi('ResendEmailRef', { example: { object: 'email', id: exampleId } });
export type ResendEmailRef = z.infer<typeof ResendEmailRef>;

export const ResendBatchResponse = z
  .object({
    data: z.array(ResendEmailId).openapi({ description: 'The emails accepted, in the order given.' }),
    errors: z
      .array(z.object({ index: z.number().int(), message: z.string() }))
      .optional()
      .openapi({ description: 'With `x-batch-validation: permissive` only.' }),
  })
  .openapi('ResendBatchResponse', { example: { data: [{ id: exampleId }, { id: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5W' }] } });
export type ResendBatchResponse = z.infer<typeof ResendBatchResponse>;

export const ResendLastEvent = z.enum([
  'bounced',
  'canceled',
  'clicked',
  'complained',
  'delivered',
  'delivery_delayed',
  'failed',
  'opened',
  'queued',
  'scheduled',
  'sent',
  'suppressed',
]);
export type ResendLastEvent = z.infer<typeof ResendLastEvent>;

export const ResendEmail = z
  .object({
    object: z.literal('email'),
    id: z.string(),
    to: z.array(z.string()),
    from: z.string(),
    created_at: z.string(),
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    cc: z.array(z.string()).nullable(),
    bcc: z.array(z.string()).nullable(),
    reply_to: z.array(z.string()).nullable(),
    last_event: ResendLastEvent,
    scheduled_at: z.string().nullable(),
    tags: z.array(z.object({ name: z.string(), value: z.string() })),
  })
  .openapi('ResendEmail', {
    example: {
      object: 'email',
      id: exampleId,
      to: ['ada@example.com'],
      from: 'Acme <hello@example.com>',
      created_at: '2026-11-23T08:00:00.000Z',
      subject: 'Your invoice',
      html: '<p>Your invoice is attached.</p>',
      text: 'Your invoice is attached.',
      cc: ['billing@example.com'],
      bcc: null,
      reply_to: ['support@example.com'],
      last_event: 'delivered',
      scheduled_at: null,
      tags: [{ name: 'category', value: 'billing' }],
    },
  });
export type ResendEmail = z.infer<typeof ResendEmail>;

/** The error names of Resend's API that Tidings answers with. */
export const ResendErrorName = z.enum([
  'validation_error',
  'missing_api_key',
  'invalid_api_key',
  'restricted_api_key',
  'invalid_access',
  'not_found',
  'method_not_allowed',
  'invalid_idempotency_key',
  'invalid_idempotent_request',
  'concurrent_idempotent_requests',
  'rate_limit_exceeded',
  'internal_server_error',
]);
export type ResendErrorName = z.infer<typeof ResendErrorName>;

export const ResendErrorBody = z
  .object({
    statusCode: z.number().int(),
    name: ResendErrorName,
    message: z.string().openapi({ example: 'to: required' }),
  })
  .openapi('ResendError');
export type ResendErrorBody = z.infer<typeof ResendErrorBody>;
