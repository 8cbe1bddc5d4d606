import { ListQuery, Timestamp } from './common.ts';
import { z } from './z.ts';

/** Size limits of the send body; the OpenAPI document states them through the schemas below. */
export const MESSAGE_LIMITS = {
  address: 320,
  subject: 998,
  html: 512 * 1024,
  text: 256 * 1024,
  smsBody: 1600,
  tags: 10,
  tag: 100,
  metadataKeys: 20,
  metadataKey: 40,
  metadataValue: 500,
  variables: 100,
  variableValue: 10_000,
  scheduleDaysAhead: 30,
} as const;

export const ChannelType = z.enum(['email', 'sms']);
export type ChannelType = z.infer<typeof ChannelType>;

export const MessageStatus = z.enum(['scheduled', 'queued', 'sending', 'sent', 'delivered', 'failed', 'bounced', 'undelivered', 'canceled', 'received']).openapi({
  description:
    '`scheduled -> queued -> sending -> sent -> delivered`; from `sending` or `sent` also `failed`, `bounced` (email) or `undelivered` (sms); `scheduled|queued -> canceled`. An inbound message is `received`.',
});
export type MessageStatus = z.infer<typeof MessageStatus>;

export const MessageDirection = z.enum(['outbound', 'inbound']).openapi({ description: '`inbound`: someone sent it to one of your numbers or addresses.' });
export type MessageDirection = z.infer<typeof MessageDirection>;

/** A status-history entry: a status, or engagement with a delivered message (the status stays). */
export const MessageHistoryStatus = z.enum([...MessageStatus.options, 'opened', 'clicked', 'complained', 'delayed']);
export type MessageHistoryStatus = z.infer<typeof MessageHistoryStatus>;

const L = MESSAGE_LIMITS;

export const SendMessageBody = z
  .strictObject({
    channelType: ChannelType,
    to: z.string().trim().min(1).max(L.address).openapi({ description: 'An email address (email) or an E.164 number (sms).', example: 'ada@example.com' }),
    from: z.string().trim().min(1).max(L.address).optional().openapi({
      description:
        'email: an address (optionally `Name <address>`) on a verified domain of the organization; sms: an E.164 number it owns. Absent: the default sender. Not checked for `sk_test_` keys.',
    }),
    subject: z.string().min(1).max(L.subject).optional(),
    html: z.string().min(1).max(L.html).optional(),
    text: z.string().min(1).max(L.text).optional(),
    body: z.string().min(1).max(L.smsBody).optional().openapi({ description: 'The SMS text.' }),
    templateId: z.string().min(1).max(64).optional().openapi({ description: 'Render this template instead of literal content.' }),
    templateVersion: z.number().int().min(1).optional().openapi({ description: 'A version of the template; the latest when absent.' }),
    variables: z
      .record(z.string().min(1).max(100), z.union([z.string().max(L.variableValue), z.number(), z.boolean()]))
      .refine((v) => Object.keys(v).length <= L.variables, `at most ${L.variables} variables`)
      .optional(),
    contactId: z.string().min(1).max(64).optional(),
    scheduledAt: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Send at this time, up to 30 days ahead.' }),
    tags: z.array(z.string().trim().min(1).max(L.tag)).max(L.tags).optional(),
    metadata: z
      .record(z.string().min(1).max(L.metadataKey), z.string().max(L.metadataValue))
      .refine((m) => Object.keys(m).length <= L.metadataKeys, `at most ${L.metadataKeys} keys`)
      .optional()
      .openapi({ description: 'A flat map of strings, up to 20 keys.' }),
  })
  .openapi('SendMessageBody', {
    example: {
      channelType: 'email',
      to: 'ada@example.com',
      from: 'Acme <hello@example.com>',
      subject: 'Your sign-in code',
      html: '<p>Your code is <strong>123456</strong>.</p>',
      text: 'Your code is 123456.',
      tags: ['auth'],
      metadata: { userId: 'usr_42' },
    },
  });
export type SendMessageBody = z.infer<typeof SendMessageBody>;

const messageExample = {
  id: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  channelType: 'email',
  direction: 'outbound',
  to: 'ada@example.com',
  from: 'Acme <hello@example.com>',
  subject: 'Your sign-in code',
  text: 'Your code is 123456.',
  html: '<p>Your code is <strong>123456</strong>.</p>',
  body: null,
  templateId: null,
  templateVersion: null,
  contactId: 'con_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  broadcastId: null,
  status: 'delivered',
  segments: null,
  provider: 'resend',
  providerMessageId: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c',
  error: null,
  attempts: 1,
  tags: ['auth'],
  metadata: { userId: 'usr_42' },
  scheduledAt: null,
  sentAt: '2026-11-23T08:00:01.000Z',
  deliveredAt: '2026-11-23T08:00:03.000Z',
  failedAt: null,
  openedAt: '2026-11-23T08:04:00.000Z',
  clickedAt: null,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:04:00.000Z',
} as const;

export const MessageError = z.object({ code: z.string(), message: z.string() }).openapi('MessageError');

export const Message = z
  .object({
    id: z.string().openapi({ example: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    channelType: ChannelType,
    direction: MessageDirection,
    to: z.string(),
    from: z.string(),
    subject: z.string().nullable(),
    text: z.string().nullable(),
    html: z.string().nullable(),
    body: z.string().nullable(),
    templateId: z.string().nullable(),
    templateVersion: z.number().int().nullable(),
    contactId: z.string().nullable(),
    broadcastId: z.string().nullable().openapi({ description: 'The broadcast that sent this message, if any.' }),
    status: MessageStatus,
    segments: z.number().int().nullable().openapi({ description: 'SMS only: GSM-7 (160/153) or UCS-2 (70/67) segments.' }),
    provider: z.enum(['resend', 'telnyx', 'sandbox']).openapi({ description: 'Who sent it, or for an inbound message who received it.' }),
    providerMessageId: z.string().nullable(),
    error: MessageError.nullable(),
    attempts: z.number().int(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.string()),
    scheduledAt: Timestamp.nullable(),
    sentAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    failedAt: Timestamp.nullable(),
    openedAt: Timestamp.nullable().openapi({ description: 'The first open the provider reported (email).' }),
    clickedAt: Timestamp.nullable().openapi({ description: 'The first click the provider reported (email).' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Message', { example: messageExample });
export type Message = z.infer<typeof Message>;

export const MessageStatusEvent = z
  .object({
    status: MessageHistoryStatus.openapi({ description: 'The status reached, or engagement (`opened`, `clicked`, `complained`, `delayed`) that leaves the status as it was.' }),
    link: z.string().nullable().openapi({ description: 'The link of a `clicked` entry.' }),
    error: MessageError.nullable(),
    createdAt: Timestamp,
  })
  .openapi('MessageStatusEvent');
export type MessageStatusEvent = z.infer<typeof MessageStatusEvent>;

export const MessageWithEvents = Message.extend({
  events: z.array(MessageStatusEvent).openapi({ description: 'The status history, oldest first.' }),
}).openapi('MessageWithEvents', {
  example: {
    ...messageExample,
    events: [
      { status: 'queued', link: null, error: null, createdAt: '2026-11-23T08:00:00.000Z' },
      { status: 'sending', link: null, error: null, createdAt: '2026-11-23T08:00:00.500Z' },
      { status: 'sent', link: null, error: null, createdAt: '2026-11-23T08:00:01.000Z' },
      { status: 'delivered', link: null, error: null, createdAt: '2026-11-23T08:00:03.000Z' },
      { status: 'opened', link: null, error: null, createdAt: '2026-11-23T08:04:00.000Z' },
    ],
  },
});
export type MessageWithEvents = z.infer<typeof MessageWithEvents>;

// Items are validated one by one (so one bad item does not sink the batch): the request schema only checks the
// envelope, and each item must be a SendMessageBody.
export const SendBatchBody = z
  .strictObject({
    messages: z
      .array(z.record(z.string(), z.unknown()).openapi({ allOf: [{ $ref: '#/components/schemas/SendMessageBody' }] }))
      .min(1)
      .max(100),
  })
  .openapi('SendBatchBody', {
    example: {
      messages: [
        { channelType: 'email', to: 'ada@example.com', subject: 'Welcome', text: 'Welcome aboard, Ada.' },
        { channelType: 'sms', to: '+14155550123', body: 'Your code is 123456.' },
      ],
    },
  });
export type SendBatchBody = z.infer<typeof SendBatchBody>;

export const BatchItemError = z.object({ index: z.number().int(), code: z.string(), message: z.string() }).openapi('BatchItemError');
export type BatchItemError = z.infer<typeof BatchItemError>;

export const SendBatchResponse = z
  .object({
    data: z.array(z.union([Message, z.null()])).openapi({ description: 'One entry per item, in order; null where the item failed.' }),
    errors: z.array(BatchItemError),
  })
  .openapi('SendBatchResponse', {
    example: {
      data: [messageExample, null],
      errors: [{ index: 1, code: 'BAD_REQUEST', message: 'to: must be an E.164 phone number' }],
    },
  });
export type SendBatchResponse = z.infer<typeof SendBatchResponse>;

export const MessageListQuery = ListQuery.safeExtend({
  channelType: ChannelType.optional(),
  direction: MessageDirection.optional(),
  status: MessageStatus.optional(),
  to: z.string().trim().min(1).max(L.address).optional(),
  contactId: z.string().min(1).max(64).optional(),
  templateId: z.string().min(1).max(64).optional(),
  tag: z.string().min(1).max(L.tag).optional(),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
  createdBefore: z.iso.datetime({ offset: true }).optional(),
});
export type MessageListQuery = z.infer<typeof MessageListQuery>;
