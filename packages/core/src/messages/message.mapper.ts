import type { Message, MessageStatusEvent } from '@tidings/contracts';
import { Prisma, type Message as MessageRow, type MessageStatusEvent as MessageStatusEventRow } from '@tidings/db';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The public metadata of the stored attachments: the `path` an attachment is fetched from is never shown. */
function attachmentMetadata(stored: unknown): Message['attachments'] {
  return ((stored ?? []) as Message['attachments']).map(({ id, filename, contentType, size, contentId }) => ({ id, filename, contentType, size, contentId }));
}

/** The API's view of a message row (also the `data` of every `message.*` event). */
export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    channelType: row.channelType,
    direction: row.direction,
    to: row.to,
    toAll: [row.to, ...(row.additionalTo ?? [])],
    from: row.from,
    cc: row.cc,
    bcc: row.bcc,
    replyTo: row.replyTo,
    headers: (row.headers ?? {}) as Record<string, string>,
    subject: row.subject,
    text: row.text,
    html: row.html,
    body: row.body,
    mediaUrls: row.mediaUrls,
    attachments: attachmentMetadata(row.attachments),
    templateId: row.templateId,
    templateVersion: row.templateVersion,
    contactId: row.contactId,
    broadcastId: row.broadcastId,
    status: row.status,
    segments: row.segments,
    provider: row.provider as Message['provider'],
    mode: row.mode,
    providerMessageId: row.providerMessageId,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    attempts: row.attempts,
    tags: row.tags,
    metadata: (row.metadata ?? {}) as Record<string, string>,
    scheduledAt: iso(row.scheduledAt),
    sentAt: iso(row.sentAt),
    deliveredAt: iso(row.deliveredAt),
    failedAt: iso(row.failedAt),
    openedAt: iso(row.openedAt),
    clickedAt: iso(row.clickedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const sqlIso = (column: string) => `to_char(m."${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `toMessage` in SQL, field by field in its order, over a row aliased `m` (test/message-json.test.ts holds the two equal). */
const MESSAGE_FIELDS: [name: string, sql: string][] = [
  ...['id', 'channelType', 'direction', 'to'].map((name): [string, string] => [name, `m."${name}"`]),
  ['toAll', `array_prepend(m."to", coalesce(m."additionalTo", '{}'))`],
  ['from', 'm."from"'],
  ...['cc', 'bcc', 'replyTo'].map((name): [string, string] => [name, `m."${name}"`]),
  ['headers', `coalesce(m."headers", '{}'::jsonb)`],
  ...['subject', 'text', 'html', 'body'].map((name): [string, string] => [name, `m."${name}"`]),
  ['mediaUrls', 'm."mediaUrls"'],
  [
    'attachments',
    // most messages have none: the subquery per row was a fifth of a list page's time in Postgres
    `CASE WHEN m."attachments" = '[]'::jsonb THEN m."attachments" ELSE (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a->'id', 'filename', a->'filename', 'contentType', a->'contentType',
    'size', a->'size', 'contentId', a->'contentId') ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(m."attachments") WITH ORDINALITY AS x(a, n)) END`,
  ],
  ...['templateId', 'templateVersion', 'contactId', 'broadcastId', 'status', 'segments', 'provider', 'mode', 'providerMessageId'].map((name): [string, string] => [
    name,
    `m."${name}"`,
  ]),
  ['error', `CASE WHEN m."errorCode" IS NULL THEN NULL ELSE jsonb_build_object('code', m."errorCode", 'message', coalesce(m."errorMessage", '')) END`],
  ['attempts', 'm."attempts"'],
  ['tags', 'm."tags"'],
  ['metadata', `coalesce(m."metadata", '{}'::jsonb)`],
  ...['scheduledAt', 'sentAt', 'deliveredAt', 'failedAt', 'openedAt', 'clickedAt', 'createdAt', 'updatedAt'].map((name): [string, string] => [name, sqlIso(name)]),
];

/** The message as a jsonb value, for statements that change a message and record its event in one go. */
export const messageJsonSql = Prisma.raw(`jsonb_build_object(${MESSAGE_FIELDS.map(([name, sql]) => `'${name}', ${sql}`).join(', ')})`);

/**
 * The message as columns named like its fields, for `row_to_json` over them: JSON text with `toMessage`'s key order,
 * which a list can hand to the client as it is.
 */
export const messageColumnsSql = Prisma.raw(MESSAGE_FIELDS.map(([name, sql]) => `${sql} AS "${name}"`).join(', '));

/** One entry of a message's status history: a status, or an engagement activity (with its link for a click). */
export function toStatusEvent(row: MessageStatusEventRow): MessageStatusEvent {
  return {
    status: row.activity ?? row.status,
    provider: row.provider,
    link: row.link,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    createdAt: row.createdAt.toISOString(),
  };
}
