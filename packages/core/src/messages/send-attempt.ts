import type { Message as MessageRow } from '@tidings/db';
import type { Lane } from '@tidings/queue';
import { deleteFinishedMessageAttachmentContents } from '../attachments/attachment-content.store.ts';
import type { Deps } from '../deps.ts';
import type { DeferredReason } from '../pace/deferral.ts';
import { deferMessage } from '../pace/provider-pace.ts';
import { claimForSending, markFailed, markSent, recordAttemptError } from './delivery.ts';
import { outgoingMessage, type AttachmentFetchOptions, type OutgoingTransform } from './outgoing-message.ts';
import { decideSend, type ProviderAnswer, type SendDecision } from './send-decision.ts';
import { sendThroughProviders } from './send-through-providers.ts';

declare module '../deps.ts' {
  /** What a send may do beyond the message itself, given to it through the dependencies (sending-extensions.ts). */
  interface SendingExtensions {
    /** In order: each is given what the one before it made. */
    transforms: readonly OutgoingTransform[];
    /** The provider refused because the recipient texted STOP: the message fails and the number is suppressed. */
    failAsRecipientStopped(deps: Deps, message: MessageRow): Promise<void>;
    /** After a message failed for good (a verification whose code it carried fails with it). */
    afterFailed: readonly ((deps: Deps, message: MessageRow) => Promise<void>)[];
  }
}

export type { SendingExtensions } from '../deps.ts';

/**
 * What one attempt to send a message came to, recorded already; the caller only schedules what comes next.
 * - `done`: nothing to send (sent or canceled before, or gone); `sent`: a provider took it.
 * - `notYet`: scheduled for later; `retry`: every provider failed for now, tried again at `at`.
 * - `deferred`: waits for its provider's pace until `at` (no attempt spent, no failover).
 * - `failed`: refused for good, out of attempts, or its recipient opted out (`error.message` says which).
 */
export type SendAttempt =
  | { kind: 'done'; reason: string }
  | { kind: 'sent'; provider: string }
  | { kind: 'notYet'; at: Date }
  | { kind: 'retry'; at: Date }
  | { kind: 'deferred'; at: Date; reason: DeferredReason }
  | { kind: 'failed'; error: { code: string; message: string } };

/**
 * Claims the message and sends it through its providers in order, failing over on retryable errors
 * (sendThroughProviders); what comes of it is decided without I/O (decideSend) and recorded in one step
 * (recordSend). Our own failures (Postgres) are thrown: the caller runs the attempt again later, and the claim makes
 * that safe. After a message failed for good, the dependencies' `afterFailed` steps run (a verification fails with
 * its message); once the message is finished, its attachments' bytes are removed. `options.lane`: the lane of the
 * job's queue, whose shared claims it joins.
 * @example const attempt = await attemptToSend(deps, 'msg_01J...', { lane: 'transactional' }); if (attempt.kind === 'retry') { delay the job until attempt.at }
 */
export async function attemptToSend(deps: Deps, messageId: string, options: AttachmentFetchOptions & { lane: Lane }): Promise<SendAttempt> {
  const { lane, ...fetchOptions } = options;
  const claim = await claimForSending(deps, messageId, lane);
  if (claim.kind === 'not-yet') return { kind: 'notYet', at: claim.runAt };
  // a message known to have no attachments needs no clean-up statement
  const hasAttachments = claim.kind === 'done' || (Array.isArray(claim.message.attachments) && claim.message.attachments.length > 0);
  const attempt = claim.kind === 'done' ? ({ kind: 'done', reason: claim.reason } as const) : await send(deps, claim.message, fetchOptions);
  if (attempt.kind === 'failed' && claim.kind !== 'done') for (const after of deps.sending.afterFailed) await after(deps, claim.message);
  if (hasAttachments && attempt.kind !== 'retry' && attempt.kind !== 'deferred') {
    // not worth failing the attempt over: the maintenance sweep removes what is left
    // (a sandbox message keeps them for the sandbox inbox until the sweep's retention)
    await deleteFinishedMessageAttachmentContents(deps.db, messageId).catch((error) => deps.logger.warn({ err: error, messageId }, 'could not remove attachment bytes'));
  }
  return attempt;
}

async function send(deps: Deps, message: MessageRow, fetchOptions: AttachmentFetchOptions): Promise<SendAttempt> {
  let answer: ProviderAnswer;
  try {
    // what a provider is given, transforms applied (List-Unsubscribe, tracking, a reset link, a verification code)
    const build = await outgoingMessage(deps, message, fetchOptions);
    answer = { kind: 'sent', ...(await sendThroughProviders(deps, message, build)) };
  } catch (error) {
    answer = { kind: 'threw', error };
  }
  return recordSend(deps, message, decideSend(message, answer, deps.config.sendWorker, { now: deps.now() }));
}

/**
 * The one step that records a decision (and logs it), answering what the caller schedules next.
 * @example await recordSend(deps, message, { kind: 'failed', error, why: 'refused' }) // { kind: 'failed', error }
 */
async function recordSend(deps: Deps, message: MessageRow, decision: SendDecision): Promise<SendAttempt> {
  const log = deps.logger.child({ messageId: message.id, orgId: message.orgId, attempt: message.attempts });
  switch (decision.kind) {
    case 'sent':
      // Our own failure here (the database) is thrown: the repeat is safe where the provider dedupes.
      await markSent(deps, message, { provider: decision.provider, providerMessageId: decision.providerMessageId }, decision.followUps);
      log.info({ provider: decision.provider }, 'sent');
      return { kind: 'sent', provider: decision.provider };
    case 'deferred': {
      const { deferral } = decision;
      await deferMessage(deps, message.id, deferral);
      log.debug({ provider: deferral.provider, until: deferral.at }, 'waiting for the provider pace');
      return { kind: 'deferred', at: deferral.at, reason: deferral.reason };
    }
    case 'recipientStopped':
      await deps.sending.failAsRecipientStopped(deps, message);
      log.warn({ provider: decision.provider }, 'provider refused the message: the recipient opted out; number suppressed');
      return { kind: 'failed', error: decision.error };
    case 'failed':
      await markFailed(deps, message.id, decision.error, decision.provider);
      log.warn(
        { provider: decision.provider, reason: decision.error.code },
        decision.why === 'refused' ? 'the message was refused for good' : 'send failed after the last attempt',
      );
      return { kind: 'failed', error: decision.error };
    case 'retry':
      // an attachment that failed before any provider was called is not in the history yet
      if (decision.recordError) await recordAttemptError(deps, message.id, decision.error);
      log.info({ provider: decision.provider, reason: decision.error.code, delayMs: decision.delayMs }, 'send failed; retrying later');
      return { kind: 'retry', at: decision.at };
    case 'ours':
      throw decision.error;
  }
}
