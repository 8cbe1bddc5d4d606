import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { recordSmsOptOut } from '../suppressions/sms-opt-out.ts';
import { insertBounceSuppression } from './delivery.store.ts';
import { claimProviderEvent } from './message.store.ts';
import { changeMessageStatus, recordMessageOutcome } from './message-status.ts';
import { findReportedMessage, type ReportedMessageRef } from './reported-message.ts';

/** What a provider reported about the status of a message it accepted. */
export type ProviderOutcome = ReportedMessageRef & {
  kind: 'delivered' | 'bounced' | 'undelivered' | 'failed';
  error?: { code: string; message: string };
  /** The provider refused because the recipient opted out (texted STOP): the number is suppressed as `stopped`. */
  isRecipientStopped?: boolean;
};

const STATUS_OF_KIND = { delivered: 'delivered', bounced: 'bounced', undelivered: 'undelivered', failed: 'failed' } as const;

/**
 * THE status path for what providers report, used by every signed callback and by the sandbox alike: moves the
 * message forward (never backwards: a late `delivered` after `bounced` changes nothing), records a bounce in the
 * organization's suppression list of the message's mode, and an opt-out refusal (`isRecipientStopped`) as an SMS
 * opt-out, in one transaction, once per provider event (`eventId`). Engagement goes through `recordEngagement`,
 * inbound messages through `receiveInboundMessage`.
 * @returns whether the message was found, and whether its status changed
 * @example await applyProviderOutcome(deps, { provider: 'resend', providerMessageId: 'e1...', kind: 'bounced' });
 */
export async function applyProviderOutcome(deps: Deps, outcome: ProviderOutcome): Promise<{ found: boolean; changed: boolean }> {
  const message = await findReportedMessage(deps, outcome);
  if (!message) return { found: false, changed: false };

  const result = await unitOfWork(deps, async (tx, outbox) => {
    if (outcome.eventId && !(await claimProviderEvent(tx, outcome.provider, outcome.eventId))) return null; // a replay
    if (outcome.kind === 'bounced') {
      await insertBounceSuppression(tx, message);
    }
    if (outcome.isRecipientStopped && message.channelType === 'sms') outbox.add(await recordEvents(tx, await recordSmsOptOut(tx, message.orgId, message.to, message.mode)));
    const moved = await changeMessageStatus(tx, message.id, {
      status: STATUS_OF_KIND[outcome.kind],
      at: deps.now(),
      provider: outcome.provider,
      ...(outcome.kind === 'delivered' ? {} : { error: outcome.error ?? { code: outcome.kind, message: `The provider reported the message ${outcome.kind}` } }),
    });
    outbox.add(moved?.outbox);
    return { moved };
  });
  if (!result) return { found: true, changed: false };
  if (!result.moved) return { found: true, changed: false };
  recordMessageOutcome(deps, result.moved.row, STATUS_OF_KIND[outcome.kind]);
  return { found: true, changed: true };
}
