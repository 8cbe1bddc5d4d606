import type { Message, MessageStatusEvent } from '@tidings/contracts';
import type { Message as MessageRow, MessageStatusEvent as MessageStatusEventRow } from '@tidings/db';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The API's view of a message row (also the `data` of every `message.*` event). */
export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    channelType: row.channelType,
    to: row.to,
    from: row.from,
    subject: row.subject,
    text: row.text,
    html: row.html,
    body: row.body,
    templateId: row.templateId,
    templateVersion: row.templateVersion,
    contactId: row.contactId,
    status: row.status,
    segments: row.segments,
    provider: row.provider as Message['provider'],
    providerMessageId: row.providerMessageId,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    attempts: row.attempts,
    tags: row.tags,
    metadata: (row.metadata ?? {}) as Record<string, string>,
    scheduledAt: iso(row.scheduledAt),
    sentAt: iso(row.sentAt),
    deliveredAt: iso(row.deliveredAt),
    failedAt: iso(row.failedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** One entry of a message's status history. */
export function toStatusEvent(row: MessageStatusEventRow): MessageStatusEvent {
  return {
    status: row.status,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    createdAt: row.createdAt.toISOString(),
  };
}
