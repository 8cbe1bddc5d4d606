import type { BroadcastLinks, BroadcastListQuery, SegmentCriteria } from '@tidings/contracts';
import { columnsOf, Prisma, queryPrepared, type Db, type Reads, type Broadcast as BroadcastRow } from '@tidings/db';
import type { KeyMode, ProviderName } from '@tidings/providers';
import { auditInsertSql } from '../audit/audit-event.store.ts';
import type { AuditActor } from '../audit/audit-actor.ts';
import { eventsCte } from '../event.store.ts';
import { messageJsonSql } from '../messages/message-json.store.ts';
import type { newestFirst, olderThan } from '../pagination.ts';
import { compileCriteria } from '../segments/criteria.store.ts';
import { inTopicSql } from '../topics/topic.store.ts';
import type { RecipientContact } from './broadcast-render.ts';

/** One page's arguments, as `paginate` hands them to its fetch. */
type PageArgs = { where: ReturnType<typeof olderThan>; orderBy: typeof newestFirst; take: number; skip: number };

/** An API key acts only on its own mode's broadcasts (another mode's is not found); the dashboard passes no mode. */
const ofMode = (mode: KeyMode | undefined) => (mode ? { mode } : {});

// --- the broadcast row

/** The organization's broadcast (of `mode`, when given), or null. */
export function findBroadcast(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<BroadcastRow | null> {
  return db.broadcast.findFirst({ where: { id, orgId, ...ofMode(mode) } });
}

/** The id of the organization's broadcast (of `mode`, when given), or null: whether it is there to read from. */
export function findBroadcastId(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<{ id: string } | null> {
  return db.broadcast.findFirst({ where: { id, orgId, ...ofMode(mode) }, select: { id: true } });
}

/** The status of the organization's broadcast (of `mode`, when given), or null. */
export function findBroadcastStatus(db: Db, orgId: string, id: string, mode: KeyMode | undefined): Promise<{ status: BroadcastRow['status'] } | null> {
  return db.broadcast.findFirst({ where: { id, orgId, ...ofMode(mode) }, select: { status: true } });
}

/** A broadcast by id alone, whatever its organization (the fan-out's steps know it only by id). */
export function findBroadcastById(db: Db, id: string): Promise<BroadcastRow | null> {
  return db.broadcast.findUnique({ where: { id } });
}

export function insertBroadcast(tx: Prisma.TransactionClient, row: Prisma.BroadcastUncheckedCreateInput): Promise<BroadcastRow> {
  return tx.broadcast.create({ data: row });
}

/** A page of the organization's broadcasts, newest first; optionally of one status, and of one mode. May be served by a replica. */
export function listBroadcastsPage(
  reads: Reads,
  orgId: string,
  { status, mode }: { status: BroadcastListQuery['status']; mode: KeyMode | undefined },
  { where, ...page }: PageArgs,
): Promise<BroadcastRow[]> {
  const filter = { orgId, ...ofMode(mode), ...(status && { status }) };
  return reads.run((db) => db.broadcast.findMany({ where: { ...filter, ...where }, ...page }));
}

/** Deletes the organization's broadcast while it is a draft (count 0 otherwise). */
export function deleteDraftBroadcast(tx: Prisma.TransactionClient, orgId: string, id: string, mode: KeyMode | undefined): Promise<Prisma.BatchPayload> {
  return tx.broadcast.deleteMany({ where: { id, orgId, ...ofMode(mode), status: 'draft' } });
}

/**
 * A draft becomes `scheduled` (with `scheduledAt`) or `sending` (scheduledAt null); undefined when the broadcast is
 * not a draft of the organization (of `mode`, when given).
 */
export async function sendDraftBroadcast(
  tx: Prisma.TransactionClient,
  orgId: string,
  id: string,
  { mode, scheduledAt, now }: { mode: KeyMode | undefined; scheduledAt: Date | null; now: Date },
): Promise<BroadcastRow | undefined> {
  // The template version is pinned now (the latest, when the draft named none): a later edit of the template
  // changes nothing a scheduled or sending broadcast says.
  const [updated] = await tx.$queryRaw<BroadcastRow[]>`
      UPDATE "Broadcast" b SET "status" = ${scheduledAt ? 'scheduled' : 'sending'}::"BroadcastStatus", "scheduledAt" = ${scheduledAt ? scheduledAt.toISOString() : null}::timestamp,
        "updatedAt" = ${now.toISOString()}::timestamp,
        "templateVersion" = coalesce(b."templateVersion", (SELECT t."version" FROM "Template" t WHERE t."id" = b."templateId" AND t."orgId" = b."orgId"))
      WHERE b."id" = ${id} AND b."orgId" = ${orgId} AND b."status" = 'draft' AND (${mode ?? null}::"ApiKeyMode" IS NULL OR b."mode" = ${mode ?? null}::"ApiKeyMode")
      RETURNING b.*`;
  return updated;
}

/** The broadcast canceled while `scheduled` or `sending`; undefined otherwise (or not the organization's). */
export async function cancelBroadcastRow(
  tx: Prisma.TransactionClient,
  orgId: string,
  id: string,
  { mode, now }: { mode: KeyMode | undefined; now: Date },
): Promise<BroadcastRow | undefined> {
  const [row] = await tx.broadcast.updateManyAndReturn({
    where: { id, orgId, ...ofMode(mode), status: { in: ['scheduled', 'sending'] } },
    data: { status: 'canceled', canceledAt: now, updatedAt: now },
  });
  return row;
}

/** Counts a recipient's unsubscribe on the broadcast it came with. */
export function countBroadcastUnsubscribe(tx: Prisma.TransactionClient, id: string): Promise<BroadcastRow> {
  return tx.broadcast.update({ where: { id }, data: { unsubscribedCount: { increment: 1 } } });
}

// --- counts, links

/**
 * The message counts (opens and clicks too) of broadcasts, by status, from BroadcastMessageCount (which triggers on
 * Message keep exact): a read sums a few rows (a status per session shard), whatever the number of messages in flight.
 */
export function sumBroadcastMessageCounts(db: Db, ids: string[]): Promise<{ broadcastId: string; status: string; count: number; opened: number; clicked: number }[]> {
  return db.$queryRaw<{ broadcastId: string; status: string; count: number; opened: number; clicked: number }[]>`
    SELECT "broadcastId", "status"::text AS "status", sum("messages")::int AS "count", sum("opened")::int AS "opened", sum("clicked")::int AS "clicked"
    FROM "BroadcastMessageCount" WHERE "broadcastId" = ANY(${ids}::text[]) GROUP BY "broadcastId", "status"`;
}

/**
 * Each clicked link of the broadcast's messages (their `clicked` history entries), most clicked first: one grouped
 * read through the messages' (orgId, broadcastId) index and each one's history.
 */
export function selectBroadcastLinks(db: Db, orgId: string, broadcastId: string, limit: number): Promise<BroadcastLinks> {
  return db.$queryRaw<BroadcastLinks>`
    SELECT e."link" AS "url", count(*)::int AS "clicks", count(DISTINCT e."messageId")::int AS "uniqueClicks"
    FROM "Message" m JOIN "MessageStatusEvent" e ON e."messageId" = m."id"
    WHERE m."orgId" = ${orgId} AND m."broadcastId" = ${broadcastId} AND m."clickedAt" IS NOT NULL
      AND e."activity" = 'clicked' AND e."link" IS NOT NULL
    GROUP BY e."link" ORDER BY "clicks" DESC, "url" LIMIT ${limit}`;
}

// --- previews

/** The broadcast's fields a preview renders with, or null when not the organization's. */
export function findBroadcastForPreview(db: Db, orgId: string, id: string) {
  return db.broadcast.findFirst({ where: { id, orgId }, select: { id: true, variables: true, templateId: true, templateVersion: true } });
}

// --- unsubscribe links

/** What an unsubscribe link needs of its broadcast (found by id: the link names no organization), or null. */
export function findUnsubscribeBroadcast(db: Db, id: string) {
  return db.broadcast.findUnique({ where: { id }, select: { orgId: true, channelType: true, mode: true, topicId: true } });
}

/**
 * A test broadcast's unsubscribe: a test suppression of the contact's address, counted once by the broadcast.
 * `changed`: false when the address was on the test list already, or the contact has none.
 */
export async function suppressTestRecipient(
  db: Db,
  target: { orgId: string; contactId: string; broadcastId: string; channelType: 'email' | 'sms' },
): Promise<{ changed: boolean } | undefined> {
  const address = Prisma.raw(target.channelType === 'email' ? '"email"' : '"phone"');
  const [row] = await db.$queryRaw<{ changed: boolean }[]>`
    WITH suppressed AS (
      INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
      SELECT "orgId", ${address}, 'test', 'unsubscribed', now() AT TIME ZONE 'UTC' FROM "Contact"
      WHERE "id" = ${target.contactId} AND "orgId" = ${target.orgId} AND ${address} IS NOT NULL
      ON CONFLICT DO NOTHING RETURNING 1),
    counted AS (
      UPDATE "Broadcast" SET "unsubscribedCount" = "unsubscribedCount" + 1 WHERE "id" = ${target.broadcastId} AND EXISTS (SELECT 1 FROM suppressed))
    SELECT EXISTS (SELECT 1 FROM suppressed) AS "changed"`;
  return row;
}

// --- retrying failed messages

/** A failed message queued again, with its content where it was rendered again (else it keeps its own). */
export type RequeuedContent = { id: string; subject?: string | null; html?: string | null; text?: string | null; body?: string | null; segments?: number | null };

/**
 * Queues failed messages of the broadcast again, in one statement: the messages (content where rendered again),
 * their `queued` history, the new reason of those that failed to render again, the broadcast `sending` again (when
 * `sent` and something was queued) and the audit entry. Returns the ids queued.
 */
export async function requeueFailedMessages(
  db: Db,
  actor: AuditActor | undefined,
  {
    orgId,
    broadcastId: id,
    again,
    stillFailing,
    now,
  }: { orgId: string; broadcastId: string; again: RequeuedContent[]; stillFailing: { id: string; code: string; message: string }[]; now: string },
): Promise<{ id: string }[]> {
  // One statement: the messages queued again (content where rendered again), their history, the broadcast sending again.
  const { rows } = await queryPrepared<{ id: string }>(
    db,
    Prisma.sql`
    WITH given AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(again)}::json) AS g("id" text, "subject" text, "html" text, "text" text, "body" text, "segments" int)),
    queued AS (
      UPDATE "Message" m SET "status" = 'queued', "errorCode" = NULL, "errorMessage" = NULL, "failedAt" = NULL, "attempts" = 0,
        "subject" = coalesce(g."subject", m."subject"), "html" = coalesce(g."html", m."html"), "text" = coalesce(g."text", m."text"),
        "body" = coalesce(g."body", m."body"), "segments" = coalesce(g."segments", m."segments"), "updatedAt" = ${now}::timestamp
      FROM given g WHERE m."id" = g."id" AND m."orgId" = ${orgId} AND m."broadcastId" = ${id} AND m."status" = 'failed'
      RETURNING m."id"),
    history AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt") SELECT "id", 'queued', ${now}::timestamp FROM queued),
    failing AS (
      UPDATE "Message" m SET "errorCode" = f."code", "errorMessage" = f."message", "updatedAt" = ${now}::timestamp
      FROM json_to_recordset(${JSON.stringify(stillFailing)}::json) AS f("id" text, "code" text, "message" text)
      WHERE m."id" = f."id" AND m."orgId" = ${orgId} AND m."status" = 'failed'),
    reopened AS (
      UPDATE "Broadcast" SET "status" = 'sending', "completedAt" = NULL, "updatedAt" = ${now}::timestamp
      WHERE "id" = ${id} AND "status" = 'sent' AND EXISTS (SELECT 1 FROM queued)),
    -- the retry was asked for (and allowed) even when nothing had failed: audited either way
    audit AS (${auditInsertSql(actor, { orgId, action: 'broadcast.retriedFailed', targetId: id }, Prisma.sql`TRUE`)})
    SELECT "id" FROM queued`,
  );
  return rows;
}

// --- the fan-out

/** The broadcast canceled when it has not started (its segment, topic or template was deleted since it was scheduled). */
export async function cancelUnstartedBroadcast(tx: Prisma.TransactionClient, id: string, now: Date): Promise<BroadcastRow | undefined> {
  const [canceled] = await tx.broadcast.updateManyAndReturn({
    where: { id, status: { in: ['scheduled', 'sending'] }, startedAt: null },
    data: { status: 'canceled', canceledAt: now, updatedAt: now },
  });
  return canceled;
}

/**
 * The start's statement: fixes the recipients and starts the broadcast at once, whatever their number (nothing is
 * loaded into memory). The segment's contacts (in the topic, when it names one) with an address for the channel are
 * the recipients; those unsubscribed from the channel or on the suppression list are counted `suppressed`; the rest
 * are numbered 1..n in BroadcastRecipient, and cut into `chunkSize` chunks. Undefined when the broadcast started
 * already, or is no longer scheduled or sending.
 */
export async function startBroadcastRecipients(
  tx: Prisma.TransactionClient,
  row: BroadcastRow,
  {
    segment,
    topic,
    templateVersion,
    chunkSize,
    at,
  }: { segment: { criteria: Prisma.JsonValue } | null; topic: { id: string; defaultSubscription: string } | null; templateVersion: number; chunkSize: number; at: string },
): Promise<BroadcastRow | undefined> {
  const isEmail = row.channelType === 'email';
  const address = Prisma.raw(isEmail ? 'c."email"' : 'c."phone"');
  const subscribed = Prisma.raw(isEmail ? 'c."emailSubscribed"' : 'c."smsSubscribed"');
  const criteria = segment ? compileCriteria(segment.criteria as SegmentCriteria) : Prisma.sql`true`;
  // a topic's non-members are not recipients at all (they chose, or the topic is opt-in); members unsubscribed from
  // the channel are recipients counted `suppressed`, as without a topic
  const inTopic = topic ? inTopicSql(topic) : Prisma.sql`true`;
  const [started] = await tx.$queryRaw<BroadcastRow[]>`
      WITH matching AS MATERIALIZED (
        SELECT c."id", (${subscribed} AND NOT EXISTS (
          SELECT 1 FROM "Suppression" s WHERE s."orgId" = c."orgId" AND s."recipient" = ${address}
            AND (s."mode" = 'live' OR s."mode" = ${row.mode}::"ApiKeyMode"))) AS "isSendable"
        FROM "Contact" c WHERE c."orgId" = ${row.orgId} AND ${address} IS NOT NULL AND ${criteria} AND ${inTopic}),
      started AS (
        UPDATE "Broadcast" SET "status" = 'sending', "startedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp,
          "templateVersion" = coalesce("templateVersion", ${templateVersion}),
          "recipientCount" = (SELECT count(*) FROM matching),
          "suppressedCount" = (SELECT count(*) FROM matching WHERE NOT "isSendable"),
          "chunkCount" = ceil((SELECT count(*) FROM matching WHERE "isSendable")::numeric / ${chunkSize})
        WHERE "id" = ${row.id} AND "startedAt" IS NULL AND "status" IN ('scheduled', 'sending')
        RETURNING *),
      fixed AS (
        INSERT INTO "BroadcastRecipient" ("broadcastId", "position", "contactId")
        SELECT ${row.id}, row_number() OVER (ORDER BY m."id"), m."id" FROM matching m WHERE m."isSendable" AND EXISTS (SELECT 1 FROM started))
      SELECT * FROM started`;
  return started;
}

/** Recipients `chunk * size + 1 .. (chunk + 1) * size` of the broadcast, over BroadcastRecipient's (broadcastId, position). */
const chunkRange = (broadcastId: string, chunk: number, size: number) =>
  Prisma.sql`r."broadcastId" = ${broadcastId} AND r."position" > ${chunk * size} AND r."position" <= ${(chunk + 1) * size}`;

/** The contacts of chunk `chunk` (recipients `chunk * size + 1 .. (chunk + 1) * size`), with their positions, in order. */
export function selectFanOutRecipients(db: Db, broadcastId: string, chunk: number, size: number): Promise<RecipientContact[]> {
  return db.$queryRaw<RecipientContact[]>`
    SELECT c."id", c."email", c."phone", c."firstName", c."lastName", c."attributes", r."position"
    FROM "BroadcastRecipient" r JOIN "Contact" c ON c."id" = r."contactId" WHERE ${chunkRange(broadcastId, chunk, size)} ORDER BY r."position"`;
}

/** The messages of chunk `chunk` that still wait for their job (queued, or held until `scheduledAt`). */
export function selectChunkWaitingMessages(db: Db, broadcastId: string, chunk: number, size: number): Promise<{ id: string; scheduledAt: Date | null }[]> {
  return db.$queryRaw<{ id: string; scheduledAt: Date | null }[]>`
      SELECT m."id", m."scheduledAt" FROM "BroadcastRecipient" r
      JOIN "Message" m ON m."broadcastId" = r."broadcastId" AND m."contactId" = r."contactId"
      WHERE ${chunkRange(broadcastId, chunk, size)} AND m."status" IN ('queued', 'scheduled')`;
}

/**
 * What differs between the messages of a chunk (writeChunkMessages adds what they share from the broadcast); fields
 * left out are null. Kept this small because a chunk's messages cross to Postgres as one JSON text.
 */
export type ChunkMessage = {
  id: string;
  to: string;
  contactId: string;
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  body?: string | null;
  segments?: number;
  errorCode?: string;
  errorMessage?: string;
  /** Held by the broadcast's quiet hours or `sendRate` until then (ISO); the message is `scheduled`, deferred until then. */
  scheduledAt?: string;
  /** Why it is held (`deferredReason`), with `scheduledAt`. */
  deferredReason?: 'quiet_hours' | 'send_rate';
};

export type ChunkMessages = { from: string; tracking: { opens: boolean; clicks: boolean }; messages: ChunkMessage[] };

const messageColumns = columnsOf(Prisma.MessageScalarFieldEnum);

/**
 * Writes one chunk's messages in ONE statement: only while the broadcast is `sending` (a share lock on its row, so
 * a cancel waits for a chunk in flight and then cancels its messages), only if the chunk is not already written
 * (BroadcastChunk), and never a second message for a (broadcast, contact) (the partial unique index). A message
 * with an error is `failed`, the others `queued`. Their status events and `message.queued` / `message.failed`
 * events go with them. Returns the queued message ids, or null when the chunk was written before (or the broadcast
 * is no longer sending). Through pg itself (prepared once per connection), not Prisma: Prisma's raw queries serialize and parse every parameter
 * as JSON once more, which for a chunk's messages (about a megabyte) cost more CPU than the rest of the chunk step.
 */
export async function writeChunkMessages(
  db: Db,
  { broadcast, chunk }: { broadcast: BroadcastRow; chunk: number },
  { from, tracking, messages }: ChunkMessages,
  { now, provider }: { now: string; provider: ProviderName },
): Promise<{ queuedIds: string[]; deliveryIds: string[]; created: number; failed: number } | null> {
  // message.queued of a broadcast's messages is recorded only when an endpoint of the organization subscribes to
  // it: 100,000 events nobody receives would double the fan-out's writes (broadcast.sending announces them all).
  const eventSource = Prisma.sql`
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), m."orgId",
           CASE WHEN m."status" = 'queued' THEN 'message.queued' ELSE 'message.failed' END, ${messageJsonSql}, NULL::text
    FROM new_messages m
    WHERE m."status" = 'failed' OR (m."status" = 'queued' AND EXISTS (
      SELECT 1 FROM "Webhook" w WHERE w."orgId" = m."orgId" AND w."enabled" AND 'message.queued' = ANY (w."events")))`;
  const statement = Prisma.sql`
    WITH live AS (SELECT "id" FROM "Broadcast" WHERE "id" = ${broadcast.id} AND "status" = 'sending' FOR SHARE),
    chunk_done AS (
      INSERT INTO "BroadcastChunk" ("broadcastId", "chunk", "createdAt") SELECT "id", ${chunk}, now() AT TIME ZONE 'UTC' FROM live
      ON CONFLICT DO NOTHING RETURNING "broadcastId"),
    new_messages AS (
      INSERT INTO "Message" ("id", "orgId", "channelType", "direction", "to", "from", "subject", "html", "text", "body", "templateId",
        "templateVersion", "contactId", "broadcastId", "status", "segments", "provider", "mode", "errorCode", "errorMessage", "tags",
        "scheduledAt", "deferredUntil", "deferredReason", "failedAt", "trackOpens", "trackClicks", "createdAt", "updatedAt")
      -- once per contact: a contact is in one chunk, and a chunk written before has its BroadcastChunk row already
      SELECT m."id", ${broadcast.orgId}, ${broadcast.channelType}::"ChannelType", 'outbound', m."to", ${from}, m."subject", m."html",
        m."text", m."body", ${broadcast.templateId}, ${broadcast.templateVersion}::int, m."contactId", ${broadcast.id},
        (CASE WHEN m."errorCode" IS NOT NULL THEN 'failed' WHEN m."scheduledAt" IS NOT NULL THEN 'scheduled' ELSE 'queued' END)::"MessageStatus",
        m."segments", ${provider}, ${broadcast.mode}::"ApiKeyMode", m."errorCode", m."errorMessage", ${broadcast.tags}::text[], m."scheduledAt",
        m."scheduledAt", m."deferredReason", CASE WHEN m."errorCode" IS NULL THEN NULL ELSE ${now}::timestamp END, ${tracking.opens}, ${tracking.clicks}, ${now}::timestamp, ${now}::timestamp
      FROM json_to_recordset(${JSON.stringify(messages)}::json) AS m("id" text, "to" text, "contactId" text, "subject" text,
        "html" text, "text" text, "body" text, "segments" int, "errorCode" text, "errorMessage" text, "scheduledAt" timestamp, "deferredReason" text)
      WHERE EXISTS (SELECT 1 FROM chunk_done)
      RETURNING ${messageColumns}),
    status_events AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "errorCode", "errorMessage", "createdAt")
      SELECT "id", "status", "errorCode", "errorMessage", "createdAt" FROM new_messages),
    ${eventsCte(eventSource)}
    SELECT EXISTS (SELECT 1 FROM chunk_done) AS "isNew",
           ARRAY(SELECT "id" FROM new_messages WHERE "status" IN ('queued', 'scheduled')) AS "queuedIds",
           ARRAY(SELECT "id" FROM new_deliveries) AS "deliveryIds",
           (SELECT count(*)::int FROM new_messages) AS "created",
           (SELECT count(*)::int FROM new_messages WHERE "status" = 'failed') AS "failed"`;
  const { rows } = await queryPrepared<{ isNew: boolean; queuedIds: string[]; deliveryIds: string[]; created: number; failed: number }>(db, statement);
  return rows[0]!.isNew ? rows[0]! : null;
}

/**
 * Whether chunk `chunk` of the broadcast is written already, and how many broadcast messages of the organization
 * wait (queued or sending), counted up to `orgWindow`: it reads at most that many index entries, whatever the size
 * of the broadcasts.
 */
export async function readChunkWindow(
  db: Db,
  orgId: string,
  { broadcastId, chunk }: { broadcastId: string; chunk: number },
  orgWindow: number,
): Promise<{ written: boolean; waiting: number } | undefined> {
  const [row] = await db.$queryRaw<{ written: boolean; waiting: number }[]>`
    SELECT EXISTS (SELECT 1 FROM "BroadcastChunk" WHERE "broadcastId" = ${broadcastId} AND "chunk" = ${chunk}) AS "written",
      (SELECT count(*)::int FROM (
        SELECT 1 FROM "Message" m
        WHERE m."broadcastId" IN (SELECT b."id" FROM "Broadcast" b WHERE b."orgId" = ${orgId} AND b."status" = 'sending')
          AND m."status" IN ('queued', 'sending')
        LIMIT ${orgWindow}) w) AS "waiting"`;
  return row;
}

/** The chunks 0..chunkCount-1 not written yet whose predecessor `step` back is written (or that have none). */
export function selectLostChunks(db: Db, broadcastId: string, chunkCount: number, step: number): Promise<{ chunk: number }[]> {
  const written = (k: Prisma.Sql) => Prisma.sql`EXISTS (SELECT 1 FROM "BroadcastChunk" d WHERE d."broadcastId" = ${broadcastId} AND d."chunk" = ${k})`;
  return db.$queryRaw<{ chunk: number }[]>`
    SELECT k AS "chunk" FROM generate_series(0, ${chunkCount - 1}) k
    WHERE NOT ${written(Prisma.sql`k`)} AND (k < ${step} OR ${written(Prisma.sql`k - ${step}`)})`;
}

/**
 * The broadcast becomes `sent` once every chunk is written and no message waits for a provider (none `scheduled`,
 * `queued` or `sending`: a message deferred for the provider's pace is `sending`); undefined while not.
 */
export async function markBroadcastSentWhenDone(tx: Prisma.TransactionClient, broadcastId: string, at: string): Promise<BroadcastRow | undefined> {
  const [sent] = await tx.$queryRaw<BroadcastRow[]>`
      UPDATE "Broadcast" b SET "status" = 'sent', "completedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp
      WHERE b."id" = ${broadcastId} AND b."status" = 'sending' AND b."startedAt" IS NOT NULL
        AND (SELECT count(*) FROM "BroadcastChunk" k WHERE k."broadcastId" = b."id") >= b."chunkCount"
        AND NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."broadcastId" = b."id" AND m."status" IN ('scheduled', 'queued', 'sending'))
      RETURNING *`;
  return sent;
}

/** Where a broadcast's fan-out stands (found by id alone), or null. */
export function findBroadcastProgress(db: Db, id: string): Promise<{ status: BroadcastRow['status']; startedAt: Date | null; chunkCount: number } | null> {
  return db.broadcast.findUnique({ where: { id }, select: { status: true, startedAt: true, chunkCount: true } });
}

/** Up to 500 broadcasts whose step jobs may be lost: scheduled before `cutoff`, or sending and unchanged since. */
export function findStrandedBroadcasts(db: Db, cutoff: Date): Promise<{ id: string; status: BroadcastRow['status'] }[]> {
  return db.broadcast.findMany({
    where: {
      OR: [
        { status: 'scheduled', scheduledAt: { lt: cutoff } },
        { status: 'sending', updatedAt: { lt: cutoff } },
      ],
    },
    select: { id: true, status: true },
    take: 500,
  });
}

/** Up to `limit` ids of a broadcast's messages still held by its quiet hours (`scheduled`), for a cancel to cancel. */
export async function listHeldBroadcastMessageIds(db: Db, orgId: string, broadcastId: string, limit: number): Promise<string[]> {
  const rows = await db.message.findMany({ where: { orgId, broadcastId, status: 'scheduled' }, select: { id: true }, take: limit });
  return rows.map((r) => r.id);
}

/** When a broadcast's messages held by quiet hours are due: the first and the last, or nulls when none is held. */
export async function findHeldBroadcastMessagesDue(db: Db, orgId: string, broadcastId: string): Promise<{ first: Date | null; last: Date | null }> {
  const found = await db.message.aggregate({ where: { orgId, broadcastId, status: 'scheduled' }, _min: { scheduledAt: true }, _max: { scheduledAt: true } });
  return { first: found._min.scheduledAt, last: found._max.scheduledAt };
}
