import type { Message } from '@tidings/contracts';
import { columnsOf, Prisma, queryPrepared, type Db, type Message as MessageRow } from '@tidings/db';
import type { RequestTrace } from '@tidings/telemetry';
import { eventsCte, eventValues } from '../event.store.ts';
import { keyIdentity, reserveAnsweredSql, storeAnswersSql, type KeyedAnswer } from '../idempotency.store.ts';
import type { OutboxItem } from '../outbox.ts';
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

/** A write with its messages' jobs (jobId = message id; a scheduled one's delayed), whose outbox rows it writes. */
export type PlannedMessageWrite = MessageWrite & { jobs: OutboxItem[] };

/** `keyTaken`: the write's key was another request's, so nothing of it was written. */
export type MessageWriteOutcome = 'written' | 'keyTaken';

/**
 * Writes the messages, their first status events, the `message.queued` events with their webhook deliveries, the
 * outbox rows of all those jobs and the idempotent answers of a group of requests in ONE statement (atomic on its
 * own: no interactive transaction holds a pooled connection across round trips). The rows travel as one JSON
 * parameter. Returns each write's outcome, the send jobs written and the webhook deliveries made (their jobs are added
 * after commit: message-writes.ts).
 */
export async function writeMessagesStatement(
  db: Db,
  group: PlannedMessageWrite[],
): Promise<{ outcomes: MessageWriteOutcome[]; jobs: OutboxItem[]; deliveries: { id: string; orgId: string; createdAt: Date | null }[] }> {
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
  const jobs = writes.flatMap((w) => w.jobs);
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
  const { rows: returned } = await queryPrepared<{ refused: boolean; id: string; orgId: string; createdAt: Date | null }>(
    db,
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
    SELECT false AS "refused", "id", "orgId", "createdAt" FROM new_deliveries
    ${isGated ? Prisma.sql`UNION ALL SELECT true, "id", NULL, NULL FROM refused` : Prisma.empty}`,
  );
  const refused = new Set(returned.filter((r) => r.refused).map((r) => r.id));
  const deliveries = returned.filter((r) => !r.refused);
  return {
    outcomes: group.map((w, i) => (isRepeat[i] || w.accepted.some((a) => refused.has(a.row.id)) ? 'keyTaken' : 'written')),
    jobs: jobs.filter((job) => !refused.has(job.jobId)),
    deliveries,
  };
}
