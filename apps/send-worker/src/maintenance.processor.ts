import type { Job } from 'bullmq';
import {
  applyRetention,
  ensurePartitions,
  requeueStrandedBroadcasts,
  deleteExpiredSessions,
  expireOverdueVerifications,
  recheckPendingDomains,
  relayOutbox,
  removeUnneededAttachments,
  reportSandboxOutcome,
  requeueStrandedMessages,
  sandboxOutcomeMessageId,
  type Deps,
} from '@tidings/core';

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

/** The scheduler id (and job name) of the minutely sweep that settles overdue verifications `expired`, with their events. */
export const EXPIRE_OVERDUE_VERIFICATIONS = 'expire-overdue-verifications';
/** One processor per scheduler, by its name: each runs one piece of periodic work and says what it did. */
const schedulerProcessors: Record<string, (deps: Deps) => Promise<object>> = {
  [OUTBOX_RELAY]: async (deps) => ({ relayed: await relayOutbox(deps, { graceMs: deps.config.sendWorker.outboxRelayGraceMs }) }),
  [RECHECK_PENDING_DOMAINS]: async (deps) => ({ rechecked: await recheckPendingDomains(deps) }),
  [REQUEUE_STRANDED_MESSAGES]: async (deps) => {
    const overdue = { overdueMs: deps.config.strandedJobAfterMs };
    return { requeued: await requeueStrandedMessages(deps, overdue), broadcasts: await requeueStrandedBroadcasts(deps, overdue) };
  },
  [EXPIRE_OVERDUE_VERIFICATIONS]: async (deps) => ({ expired: await expireOverdueVerifications(deps) }),
  [DELETE_EXPIRED_SESSIONS]: async (deps) => ({ deleted: await deleteExpiredSessions(deps) }),
  [REMOVE_UNNEEDED_ATTACHMENTS]: async (deps) => ({ removed: await removeUnneededAttachments(deps) }),
  [PARTITIONS_AND_RETENTION]: async (deps) => ({ added: await ensurePartitions(deps), retention: await applyRetention(deps, deps.config.retention) }),
};

/**
 * The `maintenance` queue's jobs: a scheduler's job goes to that scheduler's processor (by its name), a sandbox
 * outcome (by its job id's prefix) to core's report of it. A new periodic job adds its processor to the table.
 */
export const maintenanceProcessor = (deps: Deps) => async (job: Job) => {
  const processor = schedulerProcessors[job.name];
  if (processor) return processor(deps);
  const sandboxMessageId = sandboxOutcomeMessageId(job.id);
  if (sandboxMessageId) return reportSandboxOutcome(deps, sandboxMessageId);
  deps.logger.warn({ jobId: job.id, name: job.name }, 'unknown maintenance job');
  return { outcome: 'unknown job' };
};
