import { defineOperation, json } from '../operation.ts';
import { z } from '../z.ts';
import {
  canceledMessageExample,
  idParam,
  listOf,
  Message,
  MESSAGE_LIMITS,
  MessageListQuery,
  MessageWithEvents,
  queuedMessageExample,
  SendBatchBody,
  SendBatchResponse,
  sendBatchExample,
  SendMessageBody,
} from '../schemas.ts';

const tags = ['Messages'];
const MessageIdParam = idParam('msg');
const limits =
  'Limits: `to`/`from` 320 chars, `subject` 998, `html` 512 KiB, `text` 256 KiB, `body` 1600, `tags` 10 of 100 chars, `metadata` 20 keys (40 chars) of 500-char values, `to`+`cc`+`bcc` 50 recipients, `replyTo` 10, `headers` 50, `attachments` 20 and 40 MiB decoded, `mediaUrls` 10, `variables` any JSON object nested at most 5 levels with at most 100 keys in all and 64 KiB; the whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default). Every problem is a 400 naming the field and index (`cc.3`, `attachments.0.path`), and nothing is stored.';

/** The message operations, declared once: the API attaches its handlers to them and the SDK calls them by `operationId`. */
export const messageOperations = {
  send: defineOperation({
    operationId: 'message.send',
    method: 'post',
    path: '/messages',
    permission: 'sending',
    idempotent: true,
    tags,
    summary: 'Send a message',
    description: `Accepts an email or SMS for delivery: 202 with status \`queued\`, or \`scheduled\` when \`scheduledAt\` is in the future (up to ${MESSAGE_LIMITS.scheduleDaysAhead} days). Takes \`Idempotency-Key\`. ${limits}`,
    request: { body: { required: true, ...json(SendMessageBody) } },
    responses: { 202: { description: 'The accepted message', ...json(Message, queuedMessageExample) } },
  }),
  sendBatch: defineOperation({
    operationId: 'message.sendBatch',
    method: 'post',
    path: '/messages/batch',
    permission: 'sending',
    idempotent: true,
    tags,
    summary: 'Send up to 100 messages',
    description:
      'Each item is a message.send body, validated on its own: valid items are accepted even when others fail. `data[i]` is the message or null, `errors` lists the failed indexes. Takes `Idempotency-Key`. The whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default).',
    request: { body: { required: true, ...json(SendBatchBody) } },
    responses: { 202: { description: 'Per-item results', ...json(SendBatchResponse, sendBatchExample) } },
  }),
  list: defineOperation({
    operationId: 'message.list',
    method: 'get',
    path: '/messages',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'List messages',
    description: 'Newest first, with optional filters; `createdAfter`/`createdBefore` are exclusive bounds.',
    request: { query: MessageListQuery },
    responses: { 200: { description: 'A page of messages', ...json(listOf(Message, 'MessageList')) } },
  }),
  get: defineOperation({
    operationId: 'message.get',
    method: 'get',
    path: '/messages/{id}',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'Get a message',
    description: 'The message with its status history (`events`, oldest first).',
    request: { params: MessageIdParam },
    responses: { 200: { description: 'The message', ...json(MessageWithEvents) } },
  }),
  cancel: defineOperation({
    operationId: 'message.cancel',
    method: 'post',
    path: '/messages/{id}/cancel',
    permission: 'sending',
    idempotent: false,
    errors: { 409: 'Message is sent: only scheduled or queued messages can be canceled' },
    tags,
    summary: 'Cancel a message',
    description: 'Only while `scheduled` or `queued` (409 otherwise). A canceled message is never sent, even when its job is already queued.',
    request: { params: MessageIdParam },
    responses: { 200: { description: 'The canceled message', ...json(Message, canceledMessageExample) } },
  }),
  getSource: defineOperation({
    operationId: 'message.getSource',
    method: 'get',
    path: '/messages/{id}/source',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'Get the source of an email',
    description:
      'The RFC 5322 source (`message/rfc822`) of an outbound email as Tidings hands it to the SMTP provider and the sandbox: every header (`Message-ID`, `Date`, `List-Unsubscribe`...), the bodies and the attachments still kept (a `path` attachment, or bytes removed after sending, is an empty part with `X-Tidings-Content-Omitted`). Composed again from the stored message, with the same Message-ID, Date and MIME boundaries as when it was sent; Resend and SES compose their own MIME from the same fields. Bcc recipients are not among the headers. 404 for an SMS or an inbound message.',
    request: { params: MessageIdParam },
    responses: {
      200: {
        description: 'The email source',
        content: { 'message/rfc822': { schema: z.string().openapi({ example: 'From: hello@example.com\r\nTo: ada@example.com\r\nSubject: Hi\r\n...' }) } },
      },
    },
  }),
};
