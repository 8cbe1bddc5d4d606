import { ListQuery, storableJsonProblem, storableText, Timestamp, unstorableText } from './common.ts';
import { QueryBoolean, type JsonValue } from './contacts.ts';
import { z } from './z.ts';

/** Versions are a Postgres integer. */
const MAX_VERSION = 2_147_483_647;

export const TemplateChannelType = z.enum(['email', 'sms']);
export type TemplateChannelType = z.infer<typeof TemplateChannelType>;

const templateExample = {
  id: 'tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'sign-in-code',
  channelType: 'email',
  subject: 'Your code, {{firstName}}',
  html: '<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>',
  text: 'Hi {{firstName}}, your code is {{code}}.',
  body: null,
  replyTo: ['Support <help@example.com>'],
  variables: ['firstName', 'code'],
  version: 2,
  deletedAt: null,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:30:00.000Z',
} as const;

export const Template = z
  .object({
    id: z.string().openapi({ example: 'tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    channelType: TemplateChannelType,
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    body: z.string().nullable(),
    replyTo: z.array(z.string()).openapi({ description: 'email: the Reply-To of messages sent with this template unless the send gives `replyTo`; `[]` for none.' }),
    variables: z.array(z.string()).openapi({ description: 'The variable names the content uses, derived from it.', example: ['firstName', 'code'] }),
    version: z.number().int().openapi({ description: 'The version shown; the latest unless `?version=N` asked for another.' }),
    deletedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp.openapi({ description: 'When this version was written.' }),
  })
  .openapi('Template', { example: templateExample });
export type Template = z.infer<typeof Template>;

const templateText = (max: number, description: string) => storableText().min(1).max(max).openapi({ description });
const subject = storableText()
  .min(1)
  .max(998)
  .refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks')
  .openapi({ description: 'Email subject, one line; `{{name}}` placeholders, not HTML-escaped.' });
const html = templateText(512_000, 'Email HTML; values of placeholders are HTML-escaped.');
const text = templateText(512_000, 'Email plain text; placeholders are not escaped.');
const body = templateText(10_000, 'SMS text; placeholders are not escaped.');
const replyToAddress = storableText().trim().min(1).max(320);
const replyTo = z
  .union([replyToAddress, z.array(replyToAddress).min(1).max(10)])
  .openapi({ description: 'email: one address (`Name <address>` allowed) or up to 10, used as the Reply-To of sends with this template that give none.' });

export const CreateTemplateBody = z
  .strictObject({
    name: storableText().trim().min(1).max(200),
    channelType: TemplateChannelType,
    subject: subject.optional(),
    html: html.optional(),
    text: text.optional(),
    body: body.optional(),
    replyTo: replyTo.optional(),
  })
  .superRefine((t, ctx) => {
    if (t.channelType === 'email') {
      if (t.subject === undefined) ctx.addIssue({ code: 'custom', path: ['subject'], message: 'required for an email template' });
      if (t.html === undefined && t.text === undefined) ctx.addIssue({ code: 'custom', path: ['html'], message: 'html or text is required for an email template' });
      if (t.body !== undefined) ctx.addIssue({ code: 'custom', path: ['body'], message: 'only sms templates have a body' });
    } else {
      if (t.body === undefined) ctx.addIssue({ code: 'custom', path: ['body'], message: 'required for an sms template' });
      for (const field of ['subject', 'html', 'text', 'replyTo'] as const) {
        if (t[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'only email templates have one' });
      }
    }
  })
  .openapi('CreateTemplateBody', {
    example: {
      name: 'sign-in-code',
      channelType: 'email',
      subject: 'Your code, {{firstName}}',
      html: '<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>',
      text: 'Hi {{firstName}}, your code is {{code}}.',
      replyTo: 'Support <help@example.com>',
    },
  });
export type CreateTemplateBody = z.infer<typeof CreateTemplateBody>;

export const UpdateTemplateBody = z
  .strictObject({
    name: storableText().trim().min(1).max(200).optional(),
    subject: subject.optional(),
    html: html.nullable().optional().openapi({ description: '`null` removes the HTML part (text must remain).' }),
    text: text.nullable().optional().openapi({ description: '`null` removes the text part (html must remain).' }),
    body: body.optional(),
    replyTo: replyTo.nullable().optional().openapi({ description: '`null` removes the Reply-To.' }),
  })
  .refine((t) => Object.keys(t).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateTemplateBody', {
    example: { subject: 'Your sign-in code, {{firstName}}' },
    description: 'Writes version N+1 from the latest version and these changes. The channel type cannot change.',
  });
export type UpdateTemplateBody = z.infer<typeof UpdateTemplateBody>;

export const TemplateListQuery = ListQuery.safeExtend({
  channelType: TemplateChannelType.optional(),
  name: storableText().min(1).max(200).optional().openapi({ description: 'Exact name.' }),
  includeDeleted: QueryBoolean.optional().openapi({ description: 'Include soft-deleted templates.' }),
});
export type TemplateListQuery = z.infer<typeof TemplateListQuery>;

export const TemplateGetQuery = z.strictObject({
  version: z.coerce.number().int().min(1).max(MAX_VERSION).optional().openapi({ description: 'An older version; the latest when absent.' }),
  includeDeleted: QueryBoolean.optional().openapi({ description: 'Answer for a soft-deleted template too.' }),
});
export type TemplateGetQuery = z.infer<typeof TemplateGetQuery>;

export const TemplateVersionsQuery = ListQuery.safeExtend({
  includeDeleted: QueryBoolean.optional().openapi({ description: 'Answer for a soft-deleted template too.' }),
});
export type TemplateVersionsQuery = z.infer<typeof TemplateVersionsQuery>;

/** A variable's value: any JSON value (a request body is parsed JSON already; the limits are checked on the whole). */
export const VariableValue = z
  .custom<JsonValue>(() => true)
  .openapi({ type: ['string', 'number', 'boolean', 'object', 'array', 'null'], items: {}, description: 'Any JSON value.' } as object);

/** Limits of `variables`, the same for message.send, message.sendBatch and template.preview. */
export const VARIABLE_LIMITS = { depth: 5, keys: 100, keyLength: 100, serializedBytes: 64 * 1024 } as const;

/** Why `value` breaks VARIABLE_LIMITS (naming where), or null: nesting depth, keys in all, serialized size. */
function variablesProblem(value: Record<string, unknown>): { path: (string | number)[]; message: string } | null {
  let keys = 0;
  const walk = (node: unknown, path: (string | number)[], depth: number): { path: (string | number)[]; message: string } | null => {
    if (node === null || typeof node !== 'object') return null;
    if (depth > VARIABLE_LIMITS.depth) return { path, message: `nested deeper than ${VARIABLE_LIMITS.depth} levels` };
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [key, child] of entries) {
      if (typeof key === 'string') {
        keys += 1;
        if (keys > VARIABLE_LIMITS.keys) return { path: [], message: `at most ${VARIABLE_LIMITS.keys} keys in all` };
        if (key.length === 0 || key.length > VARIABLE_LIMITS.keyLength) return { path: [...path, key], message: `keys must be 1..${VARIABLE_LIMITS.keyLength} characters` };
      }
      const problem = walk(child, [...path, key], depth + 1);
      if (problem) return problem;
    }
    return null;
  };
  const problem = walk(value, [], 1);
  if (problem) return problem;
  if (new TextEncoder().encode(JSON.stringify(value)).length > VARIABLE_LIMITS.serializedBytes)
    return { path: [], message: `at most ${VARIABLE_LIMITS.serializedBytes} bytes as JSON` };
  return null;
}

/**
 * Values for a template's placeholders: any JSON object (`{{ order.number }}` reads `{ order: { number: 42 } }`),
 * nested at most 5 levels, at most 100 keys in all, at most 64 KiB as JSON.
 */
export const TemplateVariables = z
  .record(z.string(), VariableValue)
  .superRefine((value, ctx) => {
    const problem = variablesProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
    // rendered text is stored with a message: text Postgres cannot hold is refused here, naming the variable
    for (const [name, item] of Object.entries(value)) {
      const storable = unstorableText(name) ?? storableJsonProblem(item, Infinity);
      if (storable) ctx.addIssue({ code: 'custom', path: [name], message: storable });
    }
  })
  .openapi({
    description: 'Values for the placeholders: any JSON object (strings, numbers, booleans, lists, objects), nested at most 5 levels, at most 100 keys in all, 64 KiB as JSON.',
    example: { firstName: 'Ada', order: { number: 1042 } },
  });
export type TemplateVariables = z.infer<typeof TemplateVariables>;

export const PreviewTemplateBody = z
  .strictObject({
    variables: TemplateVariables.default({}),
    version: z.number().int().min(1).max(MAX_VERSION).optional().openapi({ description: 'The version to render; the latest when absent.' }),
  })
  .openapi('PreviewTemplateBody', { example: { variables: { firstName: 'Ada', code: '123456' }, version: 2 } });
export type PreviewTemplateBody = z.infer<typeof PreviewTemplateBody>;

export const TemplatePreview = z
  .object({
    templateId: z.string(),
    version: z.number().int(),
    channelType: TemplateChannelType,
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    body: z.string().nullable(),
    segments: z.number().int().nullable().openapi({ description: 'SMS only: how many segments the body takes.' }),
    encoding: z.enum(['GSM-7', 'UCS-2']).nullable().openapi({ description: 'SMS only: GSM-7 or UCS-2.' }),
  })
  .openapi('TemplatePreview', {
    example: {
      templateId: 'tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
      version: 2,
      channelType: 'email',
      subject: 'Your code, Ada',
      html: '<p>Hi Ada, your code is <strong>123456</strong>.</p>',
      text: 'Hi Ada, your code is 123456.',
      body: null,
      segments: null,
      encoding: null,
    },
  });
export type TemplatePreview = z.infer<typeof TemplatePreview>;
