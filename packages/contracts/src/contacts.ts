import { ErrorCode, ListQuery, storableJsonProblem, StorableDateTime, storableText, Timestamp } from './common.ts';
import { ContactTopic, ContactTopicChoices } from './topics.ts';
import { z } from './z.ts';

/** A query-string boolean: `true` or `false`. */
export const QueryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Attribute keys are also addressed by segment criteria as `attributes.<key>`, so they stay simple. */
export const AttributeKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'attribute keys are 1 to 64 letters, digits, _ or -, starting with a letter or _');
/** The most attribute keys a contact may hold (the API refuses more, and so does core on every write). */
export const MAX_ATTRIBUTES = 50;
const MAX_ATTRIBUTE_JSON = 4096;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Any JSON value: segment criteria compare strings, numbers, booleans and ISO dates; lists and objects are kept as given. */
export const AttributeValue = z
  .custom<JsonValue>(() => true)
  .superRefine((value, ctx) => {
    const problem = storableJsonProblem(value) ?? (JSON.stringify(value).length > MAX_ATTRIBUTE_JSON ? `at most ${MAX_ATTRIBUTE_JSON} characters as JSON` : null);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  // `items: {}`: a list may hold any JSON values (OpenAPI linters want every array type to say what it holds)
  .openapi({
    type: ['string', 'number', 'boolean', 'object', 'array', 'null'],
    items: {},
    description: `Any JSON value, up to ${MAX_ATTRIBUTE_JSON} characters as JSON.`,
  } as object);

export const ContactAttributes = z.record(z.string(), AttributeValue).openapi({
  description: 'A JSON object; criteria address its top-level keys as `attributes.<key>`.',
  example: { plan: 'pro', seats: 12, trial: false, signupAt: '2026-01-15', tags: ['beta'] },
});

const contactExample = {
  id: 'con_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  email: 'ada@example.com',
  phone: '+14155550123',
  firstName: 'Ada',
  lastName: 'Lovelace',
  attributes: { plan: 'pro', seats: 12 },
  emailSubscribed: true,
  smsSubscribed: false,
  topics: [{ topicId: 'top_01JD8Z5Q9X4N7W2M3K6P0R1T5V', subscribed: true }],
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:05:00.000Z',
} as const;

export const Contact = z
  .object({
    id: z.string().openapi({ example: 'con_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    email: z.string().nullable().openapi({ description: 'Lower-cased.', example: 'ada@example.com' }),
    phone: z.string().nullable().openapi({ description: 'E.164.', example: '+14155550123' }),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    attributes: ContactAttributes,
    emailSubscribed: z.boolean(),
    smsSubscribed: z.boolean(),
    topics: z.array(ContactTopic).openapi({
      description: 'The topics the contact chose. A contact is in a topic it subscribed to, or that it never chose and whose default is `opt_out`.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Contact', { example: contactExample });
export type Contact = z.infer<typeof Contact>;

const name = storableText().trim().max(100);
const phone = storableText().trim().min(1).max(32).openapi({ description: 'A phone number with its country code; stored as E.164.', example: '+14155550123' });

export const CreateContactBody = z
  .strictObject({
    email: z.email().max(254).optional(),
    phone: phone.optional(),
    firstName: name.nullable().optional(),
    lastName: name.nullable().optional(),
    attributes: z
      .record(AttributeKey, AttributeValue)
      .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} keys`)
      .optional()
      .openapi({ description: 'A JSON object (top-level keys: letters, digits, _ and -); `null` values are ignored.' }),
    emailSubscribed: z.boolean().default(true),
    smsSubscribed: z.boolean().default(true),
    topics: ContactTopicChoices.optional(),
  })
  .refine((c) => c.email !== undefined || c.phone !== undefined, { message: 'email or phone is required', path: ['email'] })
  .openapi('CreateContactBody', {
    example: { email: 'ada@example.com', phone: '+14155550123', firstName: 'Ada', lastName: 'Lovelace', attributes: { plan: 'pro', seats: 12 }, smsSubscribed: false },
  });
export type CreateContactBody = z.infer<typeof CreateContactBody>;

export const UpdateContactBody = z
  .strictObject({
    email: z.email().max(254).nullable().optional(),
    phone: phone.nullable().optional(),
    firstName: name.nullable().optional(),
    lastName: name.nullable().optional(),
    attributes: z.record(AttributeKey, AttributeValue).optional().openapi({ description: 'Merged key by key into the stored attributes; a `null` value removes that key.' }),
    emailSubscribed: z.boolean().optional(),
    smsSubscribed: z.boolean().optional(),
    topics: ContactTopicChoices.optional(),
  })
  .refine((c) => Object.keys(c).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateContactBody', { example: { lastName: 'King', attributes: { plan: 'team', trial: null }, emailSubscribed: false } });
export type UpdateContactBody = z.infer<typeof UpdateContactBody>;

export const MAX_BULK_CONTACTS = 1000;

export const BulkCreateContactsBody = z
  .strictObject({
    // Rows are validated one by one (a bad row is reported by index, never failing the others), so the envelope only
    // checks the count; the document still shows each row's schema.
    contacts: z
      .array(z.unknown())
      .min(1)
      .max(MAX_BULK_CONTACTS)
      .openapi({ items: { $ref: '#/components/schemas/CreateContactBody' } } as object),
    onConflict: z.enum(['skip', 'update']).default('skip').openapi({
      description:
        "A row whose email or phone a contact already has: `skip` reports it in `errors` (409), `update` changes that contact: the row's names, its attributes merged key by key (a `null` value removes the key), its email or phone, and `emailSubscribed`/`smsSubscribed` only when false (an import never resubscribes anyone).",
    }),
  })
  .openapi('BulkCreateContactsBody', {
    example: {
      contacts: [
        { email: 'ada@example.com', firstName: 'Ada', attributes: { plan: 'pro' } },
        { phone: '+14155550124', firstName: 'Grace' },
      ],
    },
  });
export type BulkCreateContactsBody = z.infer<typeof BulkCreateContactsBody>;

export const RowError = z
  .object({ index: z.number().int(), code: ErrorCode, message: z.string() })
  .openapi('RowError', { description: 'Why the row at `index` of the request was not created.' });
export type RowError = z.infer<typeof RowError>;

export const BulkCreateContactsResult = z
  .object({
    created: z.array(Contact),
    updated: z.array(Contact).openapi({ description: 'With `onConflict: "update"`: the existing contacts the rows changed, in request order.' }),
    errors: z.array(RowError),
  })
  .openapi('BulkCreateContactsResult', {
    example: { created: [contactExample], updated: [], errors: [{ index: 1, code: 'BAD_REQUEST', message: 'email: Invalid email address' }] },
  });
export type BulkCreateContactsResult = z.infer<typeof BulkCreateContactsResult>;

/** The filters of contact.list, which contact.export takes too. */
const contactFilters = {
  email: z.email().optional().openapi({ description: 'Exact address (case-insensitive).' }),
  phone: phone.optional().openapi({ description: 'Exact number, in any format libphonenumber reads.' }),
  q: storableText().trim().min(1).max(100).optional().openapi({ description: 'Case-insensitive prefix of first name, last name, full name or email.' }),
  segmentId: storableText().min(1).max(64).optional().openapi({ description: "Only contacts matching the segment's criteria now." }),
  subscribed: QueryBoolean.optional().openapi({
    description: '`true`: subscribed to email or SMS (or both). `false`: unsubscribed from both.',
  }),
  createdAfter: StorableDateTime.optional(),
  createdBefore: StorableDateTime.optional(),
};

export const ContactListQuery = ListQuery.safeExtend(contactFilters);
export type ContactListQuery = z.infer<typeof ContactListQuery>;

export const ContactExportQuery = z.strictObject(contactFilters);
/** contact.list's filters without paging. */
export type ContactFilterQuery = z.infer<typeof ContactExportQuery>;
