import { OpenAPIHono } from '@hono/zod-openapi';
import { idParam, listOf, Message, MessageListQuery, MessageWithEvents, SendBatchBody, SendBatchResponse, SendMessageBody } from '@tidings/contracts';
import { cancelMessage, getMessage, listMessages, sendMessage, sendMessages } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { idempotent } from '../middleware/idempotency.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const tags = ['Messages'];
const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });
const MessageIdParam = idParam('msg');
const limits =
  'Limits: `to`/`from` 320 chars, `subject` 998, `html` 512 KiB, `text` 256 KiB, `body` 1600, `tags` 10 of 100 chars, `metadata` 20 keys (40 chars) of 500-char values, `to`+`cc`+`bcc` 50 recipients, `replyTo` 10, `headers` 50, `attachments` 20 and 40 MiB decoded, `mediaUrls` 10, `variables` any JSON object nested at most 5 levels with at most 100 keys in all and 64 KiB; the whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default). Every problem is a 400 naming the field and index (`cc.3`, `attachments.0.path`), and nothing is stored.';

const send = operation({
  operationId: 'message.send',
  method: 'post',
  path: '/messages',
  tags,
  summary: 'Send a message',
  description: `Accepts an email or SMS for delivery: 202 with status \`queued\`, or \`scheduled\` when \`scheduledAt\` is in the future (up to 30 days). Takes \`Idempotency-Key\`. ${limits}`,
  sendingKeyAllowed: true,
  middleware: [idempotent],
  request: { body: { required: true, ...json(SendMessageBody) } },
  responses: { 202: { description: 'The accepted message', ...json(Message) } },
});

const sendBatch = operation({
  operationId: 'message.sendBatch',
  method: 'post',
  path: '/messages/batch',
  tags,
  summary: 'Send up to 100 messages',
  description:
    'Each item is a message.send body, validated on its own: valid items are accepted even when others fail. `data[i]` is the message or null, `errors` lists the failed indexes. Takes `Idempotency-Key`. The whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default).',
  middleware: [idempotent],
  request: { body: { required: true, ...json(SendBatchBody) } },
  responses: { 202: { description: 'Per-item results', ...json(SendBatchResponse) } },
});

const list = operation({
  operationId: 'message.list',
  method: 'get',
  path: '/messages',
  tags,
  summary: 'List messages',
  description: 'Newest first, with optional filters; `createdAfter`/`createdBefore` are exclusive bounds.',
  sendingKeyAllowed: true,
  request: { query: MessageListQuery },
  responses: { 200: { description: 'A page of messages', ...json(listOf(Message, 'MessageList')) } },
});

const get = operation({
  operationId: 'message.get',
  method: 'get',
  path: '/messages/{id}',
  tags,
  summary: 'Get a message',
  description: 'The message with its status history (`events`, oldest first).',
  sendingKeyAllowed: true,
  request: { params: MessageIdParam },
  responses: { 200: { description: 'The message', ...json(MessageWithEvents) } },
});

const cancel = operation({
  operationId: 'message.cancel',
  method: 'post',
  path: '/messages/{id}/cancel',
  tags,
  summary: 'Cancel a message',
  description: 'Only while `scheduled` or `queued` (409 otherwise). A canceled message is never sent, even when its job is already queued.',
  request: { params: MessageIdParam },
  responses: { 200: { description: 'The canceled message', ...json(Message) } },
});

/** The 202 a send answers with, committed with the messages under the Idempotency-Key when there is one. */
const answer = (key: string | undefined) => (key === undefined ? undefined : { key, status: 202, body: <T>(result: T) => result });

/** The five message operations. */
export const messageRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(send, async (c) => c.json(await sendMessage(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json'), answer(c.var.idempotencyKey)), 202))
  .openapi(sendBatch, async (c) =>
    c.json(await sendMessages(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json').messages, answer(c.var.idempotencyKey)), 202),
  )
  .openapi(list, async (c) => c.json(await listMessages(c.var.deps, c.var.orgId, c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await getMessage(c.var.deps, c.var.orgId, c.req.valid('param').id), 200))
  .openapi(cancel, async (c) => c.json(await cancelMessage(c.var.deps, c.var.orgId, c.req.valid('param').id), 200));
