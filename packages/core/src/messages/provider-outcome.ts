import type { Deps } from '../deps.ts';
import { dispatchOutbox } from '../outbox.ts';
import { recordMessageOutcome } from './message-outcome.ts';
import { changeMessageStatus, type ChangedMessage } from './message-status.ts';

/** What a provider reported about a message it accepted. */
export type ProviderOutcome = {
  provider: 'resend' | 'telnyx' | 'sandbox';
  /** Our id when the provider echoes it (Resend tags, the sandbox); else the provider's id finds the message. */
  messageId?: string;
  providerMessageId?: string;
  kind: 'delivered' | 'bounced' | 'complained' | 'undelivered' | 'failed';
  error?: { code: string; message: string };
};

const STATUS_OF_KIND = { delivered: 'delivered', bounced: 'bounced', undelivered: 'undelivered', failed: 'failed' } as const;

/**
 * The one path for what providers report, used by the signed callbacks and by the sandbox alike: moves the message
 * forward (never backwards: a late `delivered` after `bounced` changes nothing) and records bounces and complaints
 * in the organization's suppression list, in one transaction.
 * @returns whether the message was found, and whether its status changed
 * @example await applyProviderOutcome(deps, { provider: 'resend', providerMessageId: 'e1...', kind: 'bounced' });
 */
export async function applyProviderOutcome(deps: Deps, outcome: ProviderOutcome): Promise<{ found: boolean; changed: boolean }> {
  const message = outcome.messageId
    ? await deps.db.message.findUnique({ where: { id: outcome.messageId }, select: { id: true, orgId: true, to: true, provider: true } })
    : outcome.providerMessageId
      ? await deps.db.message.findFirst({ where: { providerMessageId: outcome.providerMessageId, provider: outcome.provider }, select: { id: true, orgId: true, to: true, provider: true } })
      : null;
  if (!message || message.provider !== outcome.provider) return { found: false, changed: false };

  const result: { moved: ChangedMessage | null } = await deps.db.$transaction(async (tx) => {
    if (outcome.kind === 'bounced' || outcome.kind === 'complained') {
      await tx.suppression.createMany({
        data: [{ orgId: message.orgId, recipient: message.to, reason: outcome.kind === 'bounced' ? 'bounced' : 'complained' }],
        skipDuplicates: true,
      });
    }
    if (outcome.kind === 'complained') return { moved: null }; // a complaint follows delivery: the status stays
    const moved = await changeMessageStatus(tx, message.id, {
      status: STATUS_OF_KIND[outcome.kind],
      at: deps.now(),
      ...(outcome.kind === 'delivered' ? {} : { error: outcome.error ?? { code: outcome.kind, message: `The provider reported the message ${outcome.kind}` } }),
    });
    return { moved };
  });
  if (!result.moved) return { found: true, changed: false };
  if (outcome.kind !== 'complained') recordMessageOutcome(deps, result.moved.row, STATUS_OF_KIND[outcome.kind]);
  await dispatchOutbox(deps, result.moved.outbox);
  return { found: true, changed: true };
}
