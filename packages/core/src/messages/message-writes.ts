import { sendQueueOf } from '@tidings/queue';
import { groupCommit } from '../group-commit.ts';
import { deliveryJobs } from '../outbox.ts';
import { unitOfWork, type UnitOfWorkDeps } from '../unit-of-work.ts';
import { writeMessagesStatement, type MessageWrite, type MessageWriteOutcome } from './message-writes.store.ts';

/** The message writes of one process: concurrent requests share one statement (see createMessageWrites). */
export type MessageWrites = (write: MessageWrite) => Promise<MessageWriteOutcome>;

/**
 * message.send's and sendBatch's writes: concurrent requests of this process share one statement
 * (`writeMessagesStatement`) and the enqueue after its commit (group commit): each gets its own answer stored and
 * its own error, and a lone request goes at once. Made with the dependencies.
 * @example const writes = createMessageWrites(deps); await writes({ orgId, accepted, answer: null, trace: undefined });
 */
export function createMessageWrites(deps: UnitOfWorkDeps): MessageWrites {
  return groupCommit<MessageWrite, MessageWriteOutcome>(
    (group) =>
      unitOfWork(
        deps,
        async (db, outbox) => {
          // each message's job continues its own request's trace
          const planned = group.map((w) => ({
            ...w,
            jobs: w.accepted.map(({ row: m }) => ({ queue: sendQueueOf(m), jobId: m.id, orgId: m.orgId, runAt: m.status === 'scheduled' ? m.scheduledAt : null, trace: w.trace })),
          }));
          const { outcomes, jobs, deliveries } = await writeMessagesStatement(db, planned);
          outbox.add(jobs);
          // the webhook deliveries of the group's `message.queued` events go with the first request's trace
          outbox.add(deliveryJobs(deliveries).map((job) => ({ ...job, trace: group[0]!.trace })));
          return outcomes;
        },
        { transaction: false },
      ),
    {
      maxSize: 1000,
      // half the pool: the rest stays for reads and other requests, and groups grow instead of queueing on the pool
      maxInFlight: Math.max(1, Math.floor(deps.config.databasePoolSize / 2)),
      sizeOf: (write) => write.accepted.length,
    },
  );
}
