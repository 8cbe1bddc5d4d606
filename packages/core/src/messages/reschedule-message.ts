import type { Message } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { dispatchOutbox, type OutboxItem } from '../outbox.ts';
import { toMessage } from './message.mapper.ts';
import { checkSchedule } from './send-messages.ts';
import { findMessageChannel, findMessageOrThrow, rescheduleScheduledMessage } from './message.store.ts';

/**
 * Moves a scheduled message to `scheduledAt` (Resend's PATCH /emails/{id}): only while `scheduled` (409 otherwise).
 * The new time and the outbox row of its job commit together; the old delayed job is removed first so an earlier
 * time is kept too (a job that still runs at the old time finds the new one and waits, or sends if it has passed).
 * With `mode` (an API key's), another mode's message is NOT_FOUND.
 * @example const message = await rescheduleMessage(deps, orgId, 'msg_...', '2026-12-01T09:00:00Z', 'test');
 */
export async function rescheduleMessage(deps: Deps, orgId: string, id: string, scheduledAt: string, mode?: KeyMode): Promise<Message> {
  const now = deps.now();
  const runAt = checkSchedule({ scheduledAt }, now)!;
  const current = foundOr404(await findMessageChannel(deps.db, orgId, id, mode), 'Message');
  const job: OutboxItem = { queue: current.channelType, jobId: id, runAt };
  const moved = await rescheduleScheduledMessage(deps.db, orgId, id, runAt, now, job);
  const row = await findMessageOrThrow(deps.db, id);
  if (!moved) throw new AppError('CONFLICT', `Message is ${row.status}: only scheduled messages can be rescheduled`);
  // Best effort: a delayed job that stays would find the new time when it runs and wait again.
  await deps.queues[current.channelType].remove(id).catch(() => 0);
  await dispatchOutbox(deps, [job]);
  return toMessage(row);
}
