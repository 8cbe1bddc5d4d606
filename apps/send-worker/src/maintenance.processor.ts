import type { Job } from 'bullmq';
import {
  applyProviderOutcome,
  applyRetention,
  ensurePartitions,
  requeueStrandedBroadcasts,
  deleteExpiredSessions,
  recordEngagement,
  recheckPendingDomains,
  relayOutbox,
  removeUnneededAttachments,
  requeueStrandedMessages,
  type Deps,
} from '@tidings/core';
import { sandboxEngagementFor, sandboxOutcomeFor } from '@tidings/providers';

const SANDBOX_OUTCOME_PREFIX = 'sandbox-outcome.';

/** The maintenance job that reports the sandbox's outcome for a message (its id is the job id, per house rule). */
export function sandboxOutcomeJobId(messageId: string): string {
  return `${SANDBOX_OUTCOME_PREFIX}${messageId}`;
}

/** The scheduler id (and job name) of the outbox relay. */
export const OUTBOX_RELAY = 'outbox-relay';
/** The scheduler id (and job name) of the periodic DNS re-check of pending email domains. */
export const RECHECK_PENDING_DOMAINS = 'recheck-pending-domains';
/** The scheduler id (and job name) of the minutely sweep for messages whose job Redis lost. */
export const REQUEUE_STRANDED_MESSAGES = 'requeue-stranded-messages';
/** The scheduler id (and job name) of the hourly removal of expired dashboard sessions. */
export const DELETE_EXPIRED_SESSIONS = 'delete-expired-sessions';
/** The scheduler id (and job name) of the hourly removal of attachment bytes no message needs any more. */
export const REMOVE_UNNEEDED_ATTACHMENTS = 'remove-unneeded-attachments';
/** The scheduler id (and job name) of the hourly partition upkeep: months ahead added, data past retention removed. */
export const PARTITIONS_AND_RETENTION = 'partitions-and-retention';

const SANDBOX_ERRORS = {
  bounced: { code: 'BOUNCED', message: 'The sandbox bounces every message to bounce@...' },
  failed: { code: 'PROVIDER_FAILED', message: 'The sandbox fails every message to fail@...' },
  undelivered: { code: 'UNDELIVERED', message: 'The sandbox does not deliver to numbers ending in 0000' },
} as const;

/** The link the sandbox reports clicked for click@... recipients. */
const SANDBOX_CLICKED_LINK = 'https://example.com/sandbox-click';

async function reportSandboxOutcome(deps: Deps, messageId: string) {
  const message = await deps.db.message.findUnique({ where: { id: messageId }, select: { to: true } });
  if (!message) return { outcome: 'missing' };
  const kind = sandboxOutcomeFor(message.to);
  const result = await applyProviderOutcome(deps, { provider: 'sandbox', messageId, kind, ...(kind === 'delivered' ? {} : { error: SANDBOX_ERRORS[kind] }) });
  // open@, click@ and complain@ then engage, through the same path as a provider's engagement callbacks
  if (kind === 'delivered' && result.changed) {
    for (const engagement of sandboxEngagementFor(message.to)) {
      await recordEngagement(deps, { provider: 'sandbox', messageId, kind: engagement, ...(engagement === 'clicked' ? { link: SANDBOX_CLICKED_LINK } : {}) });
    }
  }
  return { outcome: kind, changed: result.changed };
}

/**
 * The `maintenance` queue's jobs, told apart by scheduler name or job id prefix: the outbox relay (a job scheduler)
 * and the sandbox's delayed outcomes. Other periodic work adds a branch here.
 */
export const maintenanceProcessor = (deps: Deps) => async (job: Job) => {
  if (job.name === OUTBOX_RELAY) return { relayed: await relayOutbox(deps, { graceMs: deps.config.sendWorker.outboxRelayGraceMs }) };
  if (job.name === RECHECK_PENDING_DOMAINS) return { rechecked: await recheckPendingDomains(deps) };
  if (job.name === REQUEUE_STRANDED_MESSAGES) {
    const overdue = { overdueMs: deps.config.strandedJobAfterMs };
    return { requeued: await requeueStrandedMessages(deps, overdue), broadcasts: await requeueStrandedBroadcasts(deps, overdue) };
  }
  if (job.name === DELETE_EXPIRED_SESSIONS) return { deleted: await deleteExpiredSessions(deps) };
  if (job.name === REMOVE_UNNEEDED_ATTACHMENTS) return { removed: await removeUnneededAttachments(deps) };
  if (job.name === PARTITIONS_AND_RETENTION) {
    return { added: await ensurePartitions(deps), retention: await applyRetention(deps, deps.config.retention) };
  }
  if (job.id?.startsWith(SANDBOX_OUTCOME_PREFIX)) return reportSandboxOutcome(deps, job.id.slice(SANDBOX_OUTCOME_PREFIX.length));
  deps.logger.warn({ jobId: job.id, name: job.name }, 'unknown maintenance job');
  return { outcome: 'unknown job' };
};
