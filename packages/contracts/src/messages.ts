import { ListQuery, StorableDateTime, storableText, Timestamp } from './common.ts';
import { TemplateVariables } from './templates.ts';
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
  scheduleDaysAhead: 30,
  /** `to`, `cc` and `bcc` together. */
  recipients: 50,
  replyTo: 10,
  headers: 50,
  headerName: 100,
  headerValue: 2000,
  attachments: 20,
  /** Decoded bytes of all of a message's attachments together. */
  attachmentBytes: 40 * 1024 * 1024,
  filename: 255,
  contentType: 255,
  contentId: 255,
  url: 2048,
  mediaUrls: 10,
} as const;

/** Header names the API sets itself (compared case-insensitively; `Content-*` as a prefix). */
export const RESERVED_HEADERS = ['from', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'reply-to'] as const;

/** Whether a custom header name is one the API sets itself. */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (RESERVED_HEADERS as readonly string[]).includes(lower) || lower.startsWith('content-');
}

/**
 * Prefixes (lower case) of headers that instruct a sending service rather than the reader: SES (`X-SES-MESSAGE-TAGS`,
 * `X-SES-CONFIGURATION-SET`, `X-SES-SOURCE-ARN`...), our own (`X-Tidings-Message-Id`), and the SMTP relays an operator
 * may point SMTP_URL at (Resend, Postmark, Mailgun, SendGrid, Mandrill, SparkPost, Mailjet). A tenant setting one could
 * change how another tenant's shared provider account tags, routes or reports the email.
 */
export const PROVIDER_CONTROL_HEADER_PREFIXES = ['x-ses-', 'x-tidings-', 'x-resend-', 'x-pm-', 'x-mailgun-', 'x-smtpapi', 'x-mc-', 'x-msys-', 'x-mj-', 'x-mailjet-'] as const;

/** Whether a custom header name steers a sending service (see PROVIDER_CONTROL_HEADER_PREFIXES). */
export function isProviderControlHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return PROVIDER_CONTROL_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

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

const Address = storableText().trim().min(1).max(L.address);
const HttpsUrl = storableText()
  .max(L.url)
  .refine((v) => URL.canParse(v) && new URL(v).protocol === 'https:', 'must be an absolute https URL');

/**
 * Standard base64. Looks for a character outside the alphabet instead of matching the whole string against an
 * anchored pattern: on a 1 MiB attachment that is under 1 ms instead of about 25 ms.
 */
function isBase64(value: string): boolean {
  if (value.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(value)) return false;
  const padding = value.indexOf('=');
  return padding === -1 || (padding >= value.length - 2 && /^=+$/.test(value.slice(padding)));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point of this check
const CONTROL_OR_SLASH = /[\u0000-\u001f/\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding line breaks and NUL is the point of this check
const LINE_BREAK_OR_NUL = /[\r\n\u0000]/;
/**
 * Bidirectional controls (the right-to-left override and its kin): in a file name or a sender they make
 * `invoice\u202Efdp.exe` read as `invoiceexe.pdf`, or one address look like another.
 */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Headers that name who sent an email: readers trust them as much as From. */
const SENDER_HEADERS = ['sender', 'return-path'];

/** One attachment: base64 `content` or an https `path` fetched at send time, exactly one of them. */
export const SendAttachment = z
  .strictObject({
    filename: storableText()
      .trim()
      .min(1)
      .max(L.filename)
      .refine((v) => !CONTROL_OR_SLASH.test(v), 'must not contain control characters or slashes')
      .refine((v) => !BIDI_CONTROL.test(v), 'must not contain bidirectional control characters (such as the right-to-left override)'),
    content: z
      .string()
      .refine(isBase64, 'must be base64 (A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4)')
      .optional()
      .openapi({ format: 'byte', description: 'The file, base64-encoded.' }),
    path: HttpsUrl.optional().openapi({ description: 'An https URL the worker fetches at send time (public addresses only, no redirects).' }),
    contentType: storableText()
      .trim()
      .regex(/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/, 'must be a MIME type like application/pdf')
      .max(L.contentType)
      .optional()
      .openapi({ description: 'Derived from the filename when absent.' }),
    contentId: z
      .string()
      .trim()
      .min(1)
      .max(L.contentId)
      .regex(/^[^\s<>]+$/, 'must not contain spaces or angle brackets')
      .optional()
      .openapi({ description: 'Makes it an inline image: reference it in `html` as `<img src="cid:...">`.' }),
  })
  .refine((a) => (a.content === undefined) !== (a.path === undefined), { message: 'give exactly one of content or path' })
  .openapi('SendAttachment');
export type SendAttachment = z.infer<typeof SendAttachment>;

/** Tidings' own engagement tracking of one send: the open pixel and the click redirect. */
export const MessageTracking = z
  .strictObject({
    opens: z.boolean().optional().openapi({ description: 'A 1x1 image `{PUBLIC_API_URL}/o/{token}` records the first open.' }),
    clicks: z.boolean().optional().openapi({ description: 'Each http(s) link goes through `{PUBLIC_API_URL}/c/{token}`, which records the click and redirects to it.' }),
  })
  .openapi('MessageTracking');
export type MessageTracking = z.infer<typeof MessageTracking>;

export const SendMessageBody = z
  .strictObject({
    channelType: ChannelType,
    to: z
      .union([z.string().trim().min(1).max(L.address), z.array(z.string().trim().min(1).max(L.address)).min(1).max(L.recipients)])
      .optional()
      .openapi({
        description:
          "An email address (email) or an E.164 number (sms). Email may name several To recipients as an array (one message; `to`, `cc` and `bcc` together at most 50). May be left out when `contactId` is given: the contact's email or phone is used.",
        example: 'ada@example.com',
      }),
    from: storableText()
      .trim()
      .min(1)
      .max(L.address)
      .refine((v) => !BIDI_CONTROL.test(v), 'must not contain bidirectional control characters (such as the right-to-left override)')
      .optional()
      .openapi({
        description:
          'email: an address (optionally `Name <address>`) on a verified domain of the organization; sms: an E.164 number it owns. Absent: the default sender. Not checked for `sk_test_` keys.',
      }),
    cc: z
      .array(Address)
      .max(L.recipients)
      .optional()
      .openapi({ description: 'email: copy recipients, each an address or `Name <address>`; `to`, `cc` and `bcc` together at most 50.' }),
    bcc: z.array(Address).max(L.recipients).optional().openapi({ description: 'email: blind copy recipients; `to`, `cc` and `bcc` together at most 50.' }),
    replyTo: z
      .union([Address, z.array(Address).min(1).max(L.replyTo)])
      .optional()
      .openapi({ description: 'email: one address or up to 10.' }),
    headers: z
      .record(
        storableText(),
        storableText()
          .max(L.headerValue)
          .refine((v) => !LINE_BREAK_OR_NUL.test(v), 'must not contain line breaks'),
      )
      .superRefine((headers, ctx) => {
        if (Object.keys(headers).length > L.headers) ctx.addIssue({ code: 'custom', message: `at most ${L.headers} headers` });
        for (const name of Object.keys(headers)) {
          // RFC 5322 field names: printable ASCII without the colon
          if (!/^[!-9;-~]+$/.test(name) || name.length > L.headerName) {
            ctx.addIssue({ code: 'custom', path: [name], message: `must be a header field name (printable ASCII, no colon or space, at most ${L.headerName} characters)` });
          } else if (isReservedHeader(name)) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by Tidings and cannot be given as a custom header` });
          else if (isProviderControlHeader(name))
            ctx.addIssue({ code: 'custom', path: [name], message: `${name} instructs the sending provider and cannot be given as a custom header` });
          else if (SENDER_HEADERS.includes(name.toLowerCase()) && BIDI_CONTROL.test(headers[name]!)) {
            ctx.addIssue({ code: 'custom', path: [name], message: 'must not contain bidirectional control characters (such as the right-to-left override)' });
          }
        }
      })
      .optional()
      .openapi({
        description:
          'email: custom headers, up to 50. `From`, `To`, `Cc`, `Bcc`, `Subject`, `Date`, `Message-ID`, `Reply-To` and `Content-*` are refused, and so are headers that instruct a sending provider (`X-SES-*`, `X-Tidings-*`, `X-Resend-*`, `X-PM-*`, `X-Mailgun-*`, `X-SMTPAPI`, `X-MC-*`, `X-MSYS-*`, `X-MJ-*`, `X-Mailjet-*`).',
      }),
    subject: storableText()
      .min(1)
      .max(L.subject)
      .refine((v) => !LINE_BREAK_OR_NUL.test(v), 'must not contain line breaks')
      .optional(),
    html: storableText().min(1).max(L.html).optional(),
    text: storableText().min(1).max(L.text).optional(),
    attachments: z
      .array(SendAttachment)
      .max(L.attachments)
      .optional()
      .openapi({ description: 'email: up to 20 files, at most 40 MiB decoded together. The message shows their metadata, never their content.' }),
    body: storableText().min(1).max(L.smsBody).optional().openapi({ description: 'The SMS text.' }),
    mediaUrls: z.array(HttpsUrl).min(1).max(L.mediaUrls).optional().openapi({ description: 'sms: up to 10 https URLs of media, sent as MMS where the provider supports it.' }),
    templateId: storableText().min(1).max(64).optional().openapi({ description: 'Render this template instead of literal content.' }),
    templateVersion: z.number().int().min(1).optional().openapi({ description: 'A version of the template; the latest when absent.' }),
    variables: TemplateVariables.optional(),
    contactId: storableText()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: 'Links the message to a contact of the organization (404 when there is none); without `to`, sends to it.' }),
    scheduledAt: StorableDateTime.optional().openapi({ description: `Send at this time, up to ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead.` }),
    tags: z.array(storableText().trim().min(1).max(L.tag)).max(L.tags).optional(),
    metadata: z
      .record(storableText().min(1).max(L.metadataKey), storableText().max(L.metadataValue))
      .refine((m) => Object.keys(m).length <= L.metadataKeys, `at most ${L.metadataKeys} keys`)
      .optional()
      .openapi({ description: 'A flat map of strings, up to 20 keys.' }),
    tracking: MessageTracking.optional().openapi({
      description:
        "email: Tidings' own open and click tracking for this message, overriding its domain's `openTracking`/`clickTracking` (an option left out follows the domain; with an `sk_test_` key, off).",
    }),
  })
  .openapi('SendMessageBody', {
    example: {
      channelType: 'email',
      to: 'ada@example.com',
      from: 'Acme <hello@example.com>',
      cc: ['billing@example.com'],
      replyTo: 'support@example.com',
      subject: 'Your invoice',
      html: '<p>Your invoice is attached. <img src="cid:logo"></p>',
      text: 'Your invoice is attached.',
      attachments: [
        {
          filename: 'invoice-1042.pdf',
          content: 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK',
          contentType: 'application/pdf',
        },
        { filename: 'logo.png', path: 'https://example.com/logo.png', contentId: 'logo' },
      ],
      headers: { 'X-Entity-Ref-ID': 'invoice-1042' },
      tags: ['billing'],
      metadata: { userId: 'usr_42' },
    },
  });
export type SendMessageBody = z.infer<typeof SendMessageBody>;

const messageExample = {
  id: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  channelType: 'email',
  direction: 'outbound',
  to: 'ada@example.com',
  toAll: ['ada@example.com'],
  from: 'Acme <hello@example.com>',
  cc: [],
  bcc: [],
  replyTo: [],
  headers: {},
  subject: 'Your sign-in code',
  text: 'Your code is 123456.',
  html: '<p>Your code is <strong>123456</strong>.</p>',
  body: null,
  mediaUrls: [],
  attachments: [],
  templateId: null,
  templateVersion: null,
  contactId: 'con_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  broadcastId: null,
  status: 'delivered',
  segments: null,
  provider: 'resend',
  mode: 'live',
  providerMessageId: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c',
  error: null,
  attempts: 1,
  tags: ['auth'],
  metadata: { userId: 'usr_42' },
  scheduledAt: null,
  deferredUntil: null,
  deferredReason: null,
  sentAt: '2026-11-23T08:00:01.000Z',
  deliveredAt: '2026-11-23T08:00:03.000Z',
  failedAt: null,
  openedAt: '2026-11-23T08:04:00.000Z',
  clickedAt: null,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:04:00.000Z',
} as const;

/** Why a message waits: its provider's limit, its sending number's pace, the recipient's quiet hours, or its broadcast's own `sendRate`. */
export const DeferredReason = z.enum(['provider_rate_limit', 'sender_rate_limit', 'quiet_hours', 'send_rate']).openapi('DeferredReason');
export type DeferredReason = z.infer<typeof DeferredReason>;

export const AttachmentMetadata = z
  .object({
    id: z.string().openapi({ example: 'att_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int().nullable().openapi({ description: 'Decoded bytes; null for a `path` attachment (fetched at send time).' }),
    contentId: z.string().nullable(),
  })
  .openapi('AttachmentMetadata');
export type AttachmentMetadata = z.infer<typeof AttachmentMetadata>;

export const MessageError = z.object({ code: z.string(), message: z.string() }).openapi('MessageError');

export const Message = z
  .object({
    id: z.string().openapi({ example: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    channelType: ChannelType,
    direction: MessageDirection,
    to: z.string().openapi({ description: 'The recipient; for an email to several To recipients the first of them (`toAll` names every one).' }),
    toAll: z.array(z.string()).openapi({ description: 'Every To recipient in order, `to` first (one entry unless `to` was an array).' }),
    from: z.string(),
    cc: z.array(z.string()).openapi({ description: 'email only; empty for sms.' }),
    bcc: z.array(z.string()),
    replyTo: z.array(z.string()),
    headers: z.record(z.string(), z.string()),
    subject: z.string().nullable(),
    text: z.string().nullable(),
    html: z.string().nullable(),
    body: z.string().nullable(),
    mediaUrls: z.array(z.string()).openapi({ description: 'sms only: the MMS media.' }),
    attachments: z.array(AttachmentMetadata).openapi({ description: 'email only: metadata of the attachments, never their content.' }),
    templateId: z.string().nullable(),
    templateVersion: z.number().int().nullable(),
    contactId: z.string().nullable(),
    broadcastId: z.string().nullable().openapi({ description: 'The broadcast that sent this message, if any.' }),
    status: MessageStatus,
    segments: z.number().int().nullable().openapi({ description: 'SMS only: GSM-7 (160/153) or UCS-2 (70/67) segments.' }),
    provider: z.enum(['resend', 'smtp', 'ses', 'telnyx', 'twilio', 'sandbox']).openapi({
      description: 'Who sent it (until then the first provider planned: the sandbox for a test key), or for an inbound message who received it.',
    }),
    mode: z.enum(['live', 'test']).openapi({
      description:
        "The mode of the key that sent it (a broadcast's message: the broadcast's; an inbound one: `test` through the sandbox, else `live`). A key sees only its own mode's messages.",
    }),
    providerMessageId: z.string().nullable(),
    error: MessageError.nullable(),
    attempts: z.number().int(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.string()),
    scheduledAt: Timestamp.nullable(),
    deferredUntil: Timestamp.nullable().openapi({
      description: "While the message waits for its provider's pace (never an attempt or a failure): until when. `null` otherwise.",
    }),
    deferredReason: DeferredReason.nullable().openapi({ description: 'Why it waits, while `deferredUntil` is set.' }),
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

/** A message as message.send answers it: accepted, not sent yet. */
const queued = <M extends object>(message: M) => ({
  ...message,
  status: 'queued',
  sentAt: null,
  deliveredAt: null,
  failedAt: null,
  providerMessageId: null,
  attempts: 0,
  error: null,
});
export const queuedMessageExample = queued(messageExample);
/** A message as message.cancel answers it. */
export const canceledMessageExample = { ...messageExample, status: 'canceled', sentAt: null, deliveredAt: null, providerMessageId: null };

export const MessageStatusEvent = z
  .object({
    status: MessageHistoryStatus.openapi({ description: 'The status reached, or engagement (`opened`, `clicked`, `complained`, `delayed`) that leaves the status as it was.' }),
    link: z.string().nullable().openapi({ description: 'The link of a `clicked` entry.' }),
    provider: z.string().nullable().openapi({
      description: 'The provider this step was about: each one tried (a failed try is a `sending` entry with its error), the one that sent it.',
    }),
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
      { status: 'queued', provider: null, link: null, error: null, createdAt: '2026-11-23T08:00:00.000Z' },
      { status: 'sending', provider: null, link: null, error: null, createdAt: '2026-11-23T08:00:00.500Z' },
      { status: 'sent', provider: 'resend', link: null, error: null, createdAt: '2026-11-23T08:00:01.000Z' },
      { status: 'delivered', provider: 'resend', link: null, error: null, createdAt: '2026-11-23T08:00:03.000Z' },
      { status: 'opened', provider: null, link: null, error: null, createdAt: '2026-11-23T08:04:00.000Z' },
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
  .openapi('SendBatchResponse', { example: { data: [messageExample, null], errors: [{ index: 1, code: 'BAD_REQUEST', message: 'to: must be an E.164 phone number' }] } });
export type SendBatchResponse = z.infer<typeof SendBatchResponse>;
/** message.sendBatch's answer: the accepted items queued. */
export const sendBatchExample = { data: [queuedMessageExample, null], errors: [{ index: 1, code: 'BAD_REQUEST', message: 'to: must be an E.164 phone number' }] };

export const MessageListQuery = ListQuery.safeExtend({
  channelType: ChannelType.optional(),
  direction: MessageDirection.optional(),
  status: MessageStatus.optional(),
  to: storableText().trim().min(1).max(L.address).optional(),
  contactId: storableText().min(1).max(64).optional(),
  broadcastId: storableText().min(1).max(64).optional().openapi({ description: 'The messages a broadcast sent.' }),
  templateId: storableText().min(1).max(64).optional(),
  tag: storableText().min(1).max(L.tag).optional(),
  createdAfter: StorableDateTime.optional(),
  createdBefore: StorableDateTime.optional(),
});
export type MessageListQuery = z.infer<typeof MessageListQuery>;
