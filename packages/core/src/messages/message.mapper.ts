import type { Message, MessageStatusEvent } from '@tidings/contracts';
import type { Message as MessageRow, MessageStatusEvent as MessageStatusEventRow } from '@tidings/db';

/** The message's SQL views (`toMessage` in SQL), where they are built. */

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The public metadata of the stored attachments: the `path` an attachment is fetched from is never shown. */
function attachmentMetadata(stored: unknown): Message['attachments'] {
  return ((stored ?? []) as Message['attachments']).map(({ id, filename, contentType, size, contentId }) => ({ id, filename, contentType, size, contentId }));
}

const isOnItsWay = (row: Pick<MessageRow, 'status'>) => row.status === 'scheduled' || row.status === 'queued' || row.status === 'sending';

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
    // a finished message waits for nothing, whatever its last deferral was
    deferredUntil: isOnItsWay(row) ? iso(row.deferredUntil) : null,
    deferredReason: isOnItsWay(row) && row.deferredUntil ? (row.deferredReason as Message['deferredReason']) : null,
    sentAt: iso(row.sentAt),
    deliveredAt: iso(row.deliveredAt),
    failedAt: iso(row.failedAt),
    openedAt: iso(row.openedAt),
    clickedAt: iso(row.clickedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

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
