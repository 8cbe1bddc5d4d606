import type { Message } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { toMessage } from './message.mapper.ts';
import { changeMessageStatus } from './message-status.ts';
import { findMessageRef, findMessageStatusOrThrow } from './message.store.ts';

/**
 * message.cancel: only while `scheduled` or `queued` (409 otherwise). The status change is the guarantee: a job
 * already in the queue finds the message canceled and sends nothing. Removing the job is only tidying. With `mode`
 * (an API key's), another mode's message is NOT_FOUND.
 * @example const message = await cancelMessage(deps, orgId, 'msg_...', 'test');
 */
export async function cancelMessage(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<Message> {
  const current = foundOr404(await findMessageRef(deps.db, orgId, id, mode), 'Message');
  const moved = await unitOfWork(
    deps,
    async (db, outbox) => {
      const moved = await changeMessageStatus(db, current.id, { status: 'canceled', at: deps.now() });
      if (!moved) {
        const now = await findMessageStatusOrThrow(db, id);
        throw new AppError('CONFLICT', `Message is ${now.status}: only scheduled or queued messages can be canceled`);
      }
      outbox.add(moved.outbox);
      return moved;
    },
    { transaction: false },
  );
  // Best effort: the job would finish without sending anyway; a waiting or delayed job can simply go.
  await deps.queues[current.channelType].remove(id).catch(() => 0);
  return toMessage(moved.row);
}
