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

/**
 * `toMessage` in SQL, over a row aliased `m`: for statements that change a message and record its event in one go
 * (test/message-json.test.ts holds the two equal).
 */
export const messageJsonSql = Prisma.raw(`jsonb_build_object(
  'id', m."id", 'channelType', m."channelType", 'direction', m."direction", 'to', m."to", 'from', m."from",
  'cc', to_jsonb(m."cc"), 'bcc', to_jsonb(m."bcc"), 'replyTo', to_jsonb(m."replyTo"), 'headers', coalesce(m."headers", '{}'::jsonb),
  'subject', m."subject", 'text', m."text", 'html', m."html", 'body', m."body", 'mediaUrls', to_jsonb(m."mediaUrls"),
  'attachments', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a->'id', 'filename', a->'filename', 'contentType', a->'contentType',
    'size', a->'size', 'contentId', a->'contentId') ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(m."attachments") WITH ORDINALITY AS x(a, n)),
  'templateId', m."templateId", 'templateVersion', m."templateVersion",
  'contactId', m."contactId", 'broadcastId', m."broadcastId", 'status', m."status", 'segments', m."segments", 'provider', m."provider",
  'mode', m."mode", 'providerMessageId', m."providerMessageId",
  'error', CASE WHEN m."errorCode" IS NULL THEN NULL ELSE jsonb_build_object('code', m."errorCode", 'message', coalesce(m."errorMessage", '')) END,
  'attempts', m."attempts", 'tags', to_jsonb(m."tags"), 'metadata', coalesce(m."metadata", '{}'::jsonb),
  'scheduledAt', ${sqlIso('scheduledAt')}, 'sentAt', ${sqlIso('sentAt')}, 'deliveredAt', ${sqlIso('deliveredAt')},
  'failedAt', ${sqlIso('failedAt')}, 'openedAt', ${sqlIso('openedAt')}, 'clickedAt', ${sqlIso('clickedAt')}, 'createdAt', ${sqlIso('createdAt')}, 'updatedAt', ${sqlIso('updatedAt')})`);

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
