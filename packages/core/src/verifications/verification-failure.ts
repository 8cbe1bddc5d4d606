import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { VERIFICATION_METADATA } from './verification-message.ts';
import { toVerification } from './verification.service.ts';
import { findOrgVerification, settleVerification } from './verification.store.ts';

/**
 * After a message failed for good: the verification whose latest code it carried is `failed`, with a
 * `verification.failed` event written in the same transaction. Nothing, without a query, for any other message.
 * @example if (attempt.kind === 'failed') await failVerificationOfMessage(deps, message);
 */
export async function failVerificationOfMessage(deps: Pick<Deps, 'db' | 'now' | 'queues' | 'redis' | 'config' | 'logger' | 'batchers'>, message: MessageRow): Promise<void> {
  const metadata = (message.metadata ?? {}) as Record<string, string>;
  const id = metadata[VERIFICATION_METADATA.id];
  const sendNumber = Number(metadata[VERIFICATION_METADATA.send]);
  if (!id) return;
  const now = deps.now();
  await unitOfWork(deps, async (tx, outbox) => {
    const verification = await findOrgVerification(tx, message.orgId, id, message.mode);
    // a copy of the metadata on another message, or an older send's message, fails nothing
    if (!verification || verification.to !== message.to || verification.sendAttempts !== sendNumber) return;
    const failed = await settleVerification(tx, { orgId: message.orgId, mode: message.mode, id, status: 'failed', now, onlyUnexpired: false });
    if (failed) outbox.add(await recordEvents(tx, [{ orgId: message.orgId, type: 'verification.failed', data: toVerification(failed, now) }]));
  });
}
