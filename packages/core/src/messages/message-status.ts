import type { MessageStatus } from '@tidings/contracts';
import type { Message as MessageRow, Prisma } from '@tidings/db';
import { recordEvents, type EventType } from '../events.ts';
import type { OutboxItem } from '../outbox.ts';
import { toMessage } from './message.mapper.ts';

/**
 * From which statuses each status may be reached. Statuses only move forward: a late or repeated callback finds
 * the message past the statuses it may move from and changes nothing.
 */
export const ALLOWED_FROM: Record<MessageStatus, MessageStatus[]> = {
  scheduled: [],
  queued: ['scheduled'],
  sending: ['queued'],
  sent: ['sending'],
  delivered: ['sending', 'sent'],
  bounced: ['sending', 'sent'],
  undelivered: ['sending', 'sent'],
  failed: ['scheduled', 'queued', 'sending', 'sent'],
  canceled: ['scheduled', 'queued'],
};

/** The webhook event type of each status; `scheduled` and `sending` have none. */
export const EVENT_OF_STATUS: Partial<Record<MessageStatus, EventType>> = {
  queued: 'message.queued',
  sent: 'message.sent',
  delivered: 'message.delivered',
  failed: 'message.failed',
  bounced: 'message.bounced',
  undelivered: 'message.undelivered',
  canceled: 'message.canceled',
};

export type StatusChange = {
  status: MessageStatus;
  error?: { code: string; message: string } | null;
  /** Other columns to set with the change (providerMessageId, attempts...). */
  set?: Prisma.MessageUpdateManyMutationInput;
  at: Date;
};

const timestampColumn: Partial<Record<MessageStatus, 'sentAt' | 'deliveredAt' | 'failedAt'>> = {
  sent: 'sentAt',
  delivered: 'deliveredAt',
  failed: 'failedAt',
  bounced: 'failedAt',
  undelivered: 'failedAt',
};

/**
 * THE status function: every status change of a message goes through here, inside the caller's transaction. It
 * moves the message only when its current status may lead to `change.status` (one conditional UPDATE, so two
 * racing changes cannot both win), appends the status event and records the `message.*` event (webhook fan-out
 * hangs off `recordEvents`). Returns null when the message was not in a status it may move from.
 * @example const moved = await db.$transaction((tx) => changeMessageStatus(tx, id, { status: 'delivered', at: now() }));
 */
export async function changeMessageStatus(
  tx: Prisma.TransactionClient,
  messageId: string,
  change: StatusChange,
): Promise<{ row: MessageRow; outbox: OutboxItem[] } | null> {
  const column = timestampColumn[change.status];
  const [row] = await tx.message.updateManyAndReturn({
    where: { id: messageId, status: { in: ALLOWED_FROM[change.status] } },
    data: {
      ...change.set,
      status: change.status,
      ...(column ? { [column]: change.at } : {}),
      ...(change.error !== undefined ? { errorCode: change.error?.code ?? null, errorMessage: change.error?.message ?? null } : {}),
    },
  });
  if (!row) return null;
  await tx.messageStatusEvent.create({
    data: { messageId, status: change.status, errorCode: change.error?.code ?? null, errorMessage: change.error?.message ?? null, createdAt: change.at },
  });
  const type = EVENT_OF_STATUS[change.status];
  const outbox = type ? await recordEvents(tx, [{ orgId: row.orgId, type, data: toMessage(row) }]) : [];
  return { row, outbox };
}
