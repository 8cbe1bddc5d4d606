import type { Message } from '@tidings/contracts';
import { AppError, foundOr404 } from '../errors.ts';
import type { OutboxItem } from '../outbox.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { toMessage } from './message.mapper.ts';
import { checkSchedule } from './send-messages.ts';
import { findMessageChannel, findMessageOrThrow, rescheduleScheduledMessage } from './message.store.ts';
import type { OrgContext } from '../request-context.ts';

/**
 * Moves a scheduled message to `scheduledAt` (Resend's PATCH /emails/{id}): only while `scheduled` (409 otherwise).
 * The new time and the outbox row of its job commit together; the old delayed job is removed first so an earlier
 * time is kept too (a job that still runs at the old time finds the new one and waits, or sends if it has passed).
 * With `mode` (an API key's), another mode's message is NOT_FOUND.
 * @example const message = await rescheduleMessage({ deps, orgId, mode: 'test' }, 'msg_...', '2026-12-01T09:00:00Z');
 */
export async function rescheduleMessage({ deps, orgId, mode }: OrgContext, id: string, scheduledAt: string): Promise<Message> {
  const now = deps.now();
  const current = foundOr404(await findMessageChannel(deps.db, orgId, id, mode), 'Message');
  const runAt = checkSchedule({ scheduledAt }, now)!;
  const job: OutboxItem = { queue: current.channelType, jobId: id, orgId, runAt };
  const row = await unitOfWork(
    deps,
    async (db, outbox) => {
      const moved = await rescheduleScheduledMessage(db, orgId, id, { runAt, now, job });
      const row = await findMessageOrThrow(db, id);
      if (!moved) throw new AppError('CONFLICT', `Message is ${row.status}: only scheduled messages can be rescheduled`);
      // Best effort, before the new job is added: a delayed job that stays would find the new time and wait again.
      await deps.queues[current.channelType].remove(id).catch(() => 0);
      outbox.add([job]);
      return row;
    },
    { transaction: false },
  );
  return toMessage(row);
}
