import type { Message } from '@tidings/contracts';
import { columnsOf, Prisma, queryPrepared, type Message as MessageRow } from '@tidings/db';
import { sendQueueOf } from '@tidings/queue';
import type { RequestTrace } from '@tidings/runtime';
import type { Deps } from '../deps.ts';
import { eventsCte, eventValues } from '../event.store.ts';
import { deliveryJobs } from '../events.ts';
import { groupCommit } from '../group-commit.ts';
import { keyIdentity, reserveAnsweredSql, storeAnswersSql, type KeyedAnswer } from '../idempotency.store.ts';
import { dispatchOutbox, type DispatchDeps, type OutboxItem } from '../outbox.ts';
import { outboxInsert } from '../outbox.store.ts';

/**
 * One request's messages. `answer`: its response, stored under its Idempotency-Key with the messages; with
 * `reserve`, the key is reserved by the same statement (SMTP submission), and the messages are written only if the
 * key was free.
 */
export type MessageWrite = {
  orgId: string;
  accepted: { row: MessageRow; message: Message }[];
  answer: (KeyedAnswer & { reserve?: { fingerprint: string; at: Date } }) | null;
  trace: RequestTrace | undefined;
};

/** `keyTaken`: the write's key was another request's, so nothing of it was written. */
export type MessageWriteOutcome = 'written' | 'keyTaken';

/** The message writes of one process: concurrent requests share one statement (see createMessageWrites). */
export type MessageWrites = (write: MessageWrite) => Promise<MessageWriteOutcome>;

/** What the message writes use. */
type WriteDeps = Pick<Deps, 'db' | 'config'> & DispatchDeps;

/**
 * Writes the messages, their first status events, the `message.queued` events with their webhook deliveries, the
 * outbox rows of all those jobs and the idempotent answers in ONE statement (atomic on its own: no interactive
 * transaction holds a pooled connection across round trips), then enqueues after commit. The rows travel as one
 * JSON parameter. Concurrent requests of this process share that statement and the enqueue (group commit): each
 * gets its own answer stored and its own error, and a lone request goes at once. Made with the dependencies.
 * @example const writes = createMessageWrites(deps); await writes({ orgId, accepted, answer: null, trace: undefined });
 */
export function createMessageWrites(deps: WriteDeps): MessageWrites {
  return groupCommit<MessageWrite, MessageWriteOutcome>((writes) => writeMessagesNow(deps, writes), {
    maxSize: 1000,
    // half the pool: the rest stays for reads and other requests, and groups grow instead of queueing on the pool
    maxInFlight: Math.max(1, Math.floor(deps.config.databasePoolSize / 2)),
    sizeOf: (write) => write.accepted.length,
  });
}

async function writeMessagesNow(deps: WriteDeps, group: MessageWrite[]): Promise<MessageWriteOutcome[]> {
  // ON CONFLICT may change a row once per statement: of two writes reserving one key, the second waits for the
  // first's answer (it is taken; its caller then finds the first's answer stored)
  const reserving = new Set<string>();
  const isRepeat = group.map((w) => {
    if (!w.answer?.reserve) return false;
    if (reserving.has(keyIdentity(w.answer))) return true;
    reserving.add(keyIdentity(w.answer));
    return false;
  });
  const writes = group.filter((_, i) => !isRepeat[i]);
  const accepted = writes.flatMap((w) => w.accepted);
  const rows = accepted.map((a) => a.row);
  const queued = accepted.filter((a) => a.row.status === 'queued').map((a) => ({ orgId: a.row.orgId, type: 'message.queued' as const, data: a.message }));
  // each message's job continues its own request's trace; the webhook deliveries of the group's `message.queued`
  // events go with the first request's
  const jobs: OutboxItem[] = writes.flatMap(({ accepted: own, trace }) =>
    own.map(({ row: m }) => ({ queue: sendQueueOf(m), jobId: m.id, runAt: m.status === 'scheduled' ? m.scheduledAt : null, trace })),
  );
  const reservations = writes.flatMap((w) => (w.answer?.reserve ? [{ ...w.answer, ...w.answer.reserve }] : []));
  const answers = writes.flatMap((w) => (w.answer && !w.answer.reserve ? [w.answer] : []));
  // the messages of a reserving write, with its key: written only if the key was taken
  const gated = writes.flatMap((w) => (w.answer?.reserve ? w.accepted.map((a) => ({ id: a.row.id, ...w.answer! })) : []));
  // Only a group with a reserving write (SMTP) gates its rows on the keys taken; the API's groups run without the
  // gate, so their statement carries none of it.
  const isGated = gated.length > 0;
  const notRefused = (id: Prisma.Sql) => (isGated ? Prisma.sql`${id} NOT IN (SELECT "id" FROM refused)` : Prisma.sql`true`);
  const gate = isGated
    ? Prisma.sql`
    reserved AS (${reserveAnsweredSql(reservations)}),
    refused AS (
      SELECT g."id" FROM unnest(${gated.map((g) => g.id)}::text[], ${gated.map((g) => g.orgId)}::text[], ${gated.map((g) => g.mode)}::text[], ${gated.map((g) => g.key)}::text[])
        AS g("id", "orgId", "mode", "key")
      WHERE NOT EXISTS (SELECT 1 FROM reserved r WHERE r."orgId" = g."orgId" AND r."mode" = g."mode" AND r."key" = g."key")),`
    : Prisma.empty;
  // through pg, prepared by name: Prisma's raw-query plumbing cost more CPU than the rest of the write
  const { rows: returned } = await queryPrepared<{ refused: boolean; id: string; createdAt: Date | null }>(
    deps.db,
    Prisma.sql`
    WITH ${gate}
    new_messages AS (
      INSERT INTO "Message" (${columnsOf(Prisma.MessageScalarFieldEnum)})
      SELECT ${columnsOf(Prisma.MessageScalarFieldEnum)} FROM jsonb_populate_recordset(NULL::"Message", ${JSON.stringify(rows)}::jsonb)
      WHERE ${notRefused(Prisma.sql`"id"`)}
      RETURNING "id", "status", "createdAt"),
    status_events AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt") SELECT "id", "status", "createdAt" FROM new_messages),
    job_outbox AS (${outboxInsert(jobs, notRefused(Prisma.sql`u."jobId"`))}),
    idempotent_answers AS (${storeAnswersSql(answers)}),
    ${eventsCte(Prisma.sql`SELECT * FROM (${eventValues(queued)}) AS q("id", "orgId", "type", "data", "webhookId") WHERE ${notRefused(Prisma.sql`q."data"->>'id'`)}`)}
    SELECT false AS "refused", "id", "createdAt" FROM new_deliveries
    ${isGated ? Prisma.sql`UNION ALL SELECT true, "id", NULL FROM refused` : Prisma.empty}`,
  );
  const refused = new Set(returned.filter((r) => r.refused).map((r) => r.id));
  const deliveries = returned.filter((r) => !r.refused);
  await dispatchOutbox(deps, [...jobs.filter((job) => !refused.has(job.jobId)), ...deliveryJobs(deliveries).map((job) => ({ ...job, trace: writes[0]!.trace }))]);
  return group.map((w, i) => (isRepeat[i] || w.accepted.some((a) => refused.has(a.row.id)) ? 'keyTaken' : 'written'));
}
