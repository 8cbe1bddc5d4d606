import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { SUPPRESSED_MESSAGE } from '../messages/delivery.ts';
import { changeMessageStatus } from '../messages/message-status.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { recordSmsOptOut } from './sms-opt-out.ts';

/**
 * The SMS provider refused the send because the recipient opted out (Telnyx 40300): the number gets the same
 * suppression an inbound STOP writes, and the message ends `failed` / `SUPPRESSED`, in one transaction.
 * @example if (error.reason === RECIPIENT_STOPPED) await failAsRecipientStopped(deps, message);
 */
export async function failAsRecipientStopped(deps: Deps, message: Pick<MessageRow, 'id' | 'orgId' | 'to' | 'mode'>): Promise<void> {
  await unitOfWork(deps, async (tx, outbox) => {
    outbox.add(await recordEvents(tx, await recordSmsOptOut(tx, message.orgId, message.to, message.mode)));
    const failed = await changeMessageStatus(tx, message.id, {
      status: 'failed',
      at: deps.now(),
      error: { code: 'SUPPRESSED', message: `${SUPPRESSED_MESSAGE}: the provider reports the recipient texted STOP` },
    });
    outbox.add(failed?.outbox);
  });
}
