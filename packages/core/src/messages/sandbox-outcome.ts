import { sandboxEngagementFor, sandboxOutcomeFor } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { recordEngagement } from './engagement.ts';
import { findMessageRecipient } from './message.store.ts';
import { applyProviderOutcome } from './provider-outcome.ts';

const SANDBOX_ERRORS = {
  bounced: { code: 'BOUNCED', message: 'The sandbox bounces every message to bounce@...' },
  failed: { code: 'PROVIDER_FAILED', message: 'The sandbox fails every message to fail@...' },
  undelivered: { code: 'UNDELIVERED', message: 'The sandbox does not deliver to numbers ending in 0000' },
} as const;

/** The link the sandbox reports clicked for click@... recipients. */
const SANDBOX_CLICKED_LINK = 'https://example.com/sandbox-click';

/**
 * Reports what the sandbox did with a message it took (delivered, bounced, failed, undelivered, by its recipient),
 * through the same path as a real provider's callbacks; open@, click@ and complain@ recipients then engage.
 * @example await reportSandboxOutcome(deps, 'msg_01J...') // { outcome: 'delivered', changed: true }
 */
export async function reportSandboxOutcome(deps: Deps, messageId: string): Promise<{ outcome: string; changed?: boolean }> {
  const message = await findMessageRecipient(deps.db, messageId);
  if (!message) return { outcome: 'missing' };
  const kind = sandboxOutcomeFor(message.to);
  const result = await applyProviderOutcome(deps, { provider: 'sandbox', messageId, kind, ...(kind === 'delivered' ? {} : { error: SANDBOX_ERRORS[kind] }) });
  if (kind === 'delivered' && result.changed) {
    for (const engagement of sandboxEngagementFor(message.to)) {
      await recordEngagement(deps, { provider: 'sandbox', messageId, kind: engagement, ...(engagement === 'clicked' ? { link: SANDBOX_CLICKED_LINK } : {}) });
    }
  }
  return { outcome: kind, changed: result.changed };
}
