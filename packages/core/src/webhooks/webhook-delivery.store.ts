import { type Db, Prisma, queryPrepared, type WebhookAttempt as WebhookAttemptRow, type WebhookDelivery as WebhookDeliveryRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Attempt } from './delivery-work.ts';
import { newestFirst } from '../pagination.ts';
import { withLastAttempt } from './webhook-mappers.ts';

/** A delivery with its endpoint and event, as one statement reads them for many deliveries. */
export type DeliveryRow = {
  id: string;
  orgId: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  claimedUntil: Date | null;
  webhookId: string;
  url: string;
  enabled: boolean;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  eventId: string | null;
  eventType: string | null;
  eventCreatedAt: Date | null;
  eventData: unknown;
  createdAt: Date;
  /** True when this call claimed the delivery: no other worker attempts it until the claim runs out. */
  isClaimed: boolean;
};

/** A job's delivery: its id, and its `createdAt` (partition key) when the job carries it. */
export type DeliveryKey = { id: string; createdAt: string | undefined };

/** The successes the shared statement records, and the time their endpoints' `updatedAt` is set to. */
export type DeliverySuccesses = { attempts: Attempt[]; at: string };

/** The deliveries the shared statement loads and claims: those due by `dueBy`, claimed until `claimedUntil`. */
export type DeliveryClaim = { keys: DeliveryKey[]; dueBy: string; claimedUntil: string };

/** A delivery with every attempt, oldest first. */
export type DeliveryWithAttempts = WebhookDeliveryRow & { attemptsLog: WebhookAttemptRow[] };

/**
 * The deliveries a key of `mode` may see: those about its own mode's messages and broadcasts, and those about
 * anything else (contacts, domains...). Without a mode (the dashboard) all of them.
 */
function visibleToMode(mode: KeyMode | undefined): Prisma.WebhookDeliveryWhereInput {
  return mode ? { OR: [{ mode: null }, { mode }] } : {};
}

// Postgres text cannot hold NUL; a response may contain anything.
const storable = (text: string | null) => (text === null ? null : text.replaceAll('\u0000', ''));

/**
 * The partitions a batch of deliveries can be in: those from the earliest to the latest `createdAt` when every job
 * carries it (a parameter, so even a generic plan prunes the others at executor start), else every one.
 */
function partitionRange(column: Prisma.Sql, keys: DeliveryKey[]): Prisma.Sql {
  let min: string | undefined;
  let max: string | undefined;
  for (const { createdAt } of keys) {
    if (createdAt === undefined) return Prisma.empty;
    if (min === undefined || createdAt < min) min = createdAt;
    if (max === undefined || createdAt > max) max = createdAt;
  }
  return Prisma.sql`AND ${column} BETWEEN ${min}::timestamp AND ${max}::timestamp`;
}

/**
 * The webhook-worker's shared statement (see `createDeliverySteps`): the successes' writes and the claims as CTEs,
 * then the loaded rows, one round trip whatever it carries.
 */
export async function recordSuccessesAndLoadDeliveries(db: Db, successes: DeliverySuccesses | undefined, claim: DeliveryClaim | undefined): Promise<DeliveryRow[]> {
  // a delivery both succeeding and loaded (its job run again beside the first) is not claimed here: Postgres
  // leaves it open which of two changes to one row in one statement takes place
  const succeededIds = (successes?.attempts ?? []).map((s) => s.work.deliveryId);
  const ctes = [...(successes ? [successCtes(successes)] : []), ...(claim ? [claimCte(claim, succeededIds)] : [])];
  // nothing to read without loads: the CTEs' writes run all the same
  const statement = Prisma.sql`WITH ${Prisma.join(ctes, ', ')} ${claim ? loadedRows(claim.keys) : Prisma.sql`SELECT NULL AS "id" WHERE false`}`;
  // through pg (queryPrepared), not Prisma's $queryRaw: a quarter less of the worker's CPU per delivery
  const { rows } = await queryPrepared<DeliveryRow>(db, statement);
  return rows;
}

/**
 * Claims the deliveries that are pending, due and unclaimed by setting their `claimedUntil` past this attempt's end
 * (a column in no index, so a HOT update). A second job run for the same delivery (BullMQ hands a job whose lock ran
 * out to another worker) finds it claimed and waits.
 * "status" is compared as text so that no plan reads the pending rows through the (status, nextAttemptAt) index and
 * filters them by id: on a partition not analysed yet (a burst of new deliveries) the planner took that for a few
 * rows, and each claim read every pending delivery.
 */
function claimCte({ keys, dueBy, claimedUntil }: DeliveryClaim, succeededIds: string[]): Prisma.Sql {
  return Prisma.sql`
    claimed AS (
      UPDATE "WebhookDelivery" SET "claimedUntil" = ${claimedUntil}::timestamp
      WHERE "id" = ANY(${keys.map((k) => k.id)}::text[]) AND "id" <> ALL(${succeededIds}::text[]) ${partitionRange(Prisma.sql`"createdAt"`, keys)} AND "status"::text = 'pending'
        AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= ${dueBy}::timestamp) AND ("claimedUntil" IS NULL OR "claimedUntil" <= ${dueBy}::timestamp)
      RETURNING "id")`;
}

/**
 * The deliveries with their endpoint and event. The SELECT sees the rows as they were before the claim (one
 * snapshot), so a claimed row shows it was due.
 */
function loadedRows(keys: DeliveryKey[]): Prisma.Sql {
  return Prisma.sql`
    SELECT d."id", d."orgId", d."status"::text AS "status", d."attempts", d."nextAttemptAt",
           d."claimedUntil", w."id" AS "webhookId", w."url", w."enabled",
           w."secretCiphertext", w."previousSecretCiphertext", w."previousSecretExpiresAt",
           w."failingSince", e."id" AS "eventId", e."type" AS "eventType",
           e."createdAt" AS "eventCreatedAt", e."data" AS "eventData",
           d."createdAt", c."id" IS NOT NULL AS "isClaimed"
    FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId" LEFT JOIN "Event" e ON e."id" = d."eventId"
      LEFT JOIN claimed c ON c."id" = d."id"
    WHERE d."id" = ANY(${keys.map((k) => k.id)}::text[]) ${partitionRange(Prisma.sql`d."createdAt"`, keys)}`;
}

/**
 * The successes' writes, as CTEs of the shared statement. "status" as text, as in the claim: the deliveries are looked
 * up by key (a nested loop of the pending rows, through the status index, against the input was most of Postgres's
 * CPU per delivery: 78 ms for 11 successes among 5,000 pending).
 */
function successCtes({ attempts: list, at }: DeliverySuccesses): Prisma.Sql {
  const keys = list.map((s) => ({ id: s.work.deliveryId, createdAt: s.work.createdAt.toISOString() }));
  return Prisma.sql`
    input AS (
      SELECT * FROM unnest(${list.map((s) => s.work.deliveryId)}::text[], ${list.map((s) => s.work.attempts + 1)}::int[],
                           ${list.map((s) => s.result.statusCode)}::int[], ${list.map((s) => Math.round(s.result.durationMs))}::int[],
                           ${list.map((s) => storable(s.result.responseBody))}::text[], ${list.map((s) => storable(s.result.error))}::text[],
                           ${list.map((s) => s.work.webhookId)}::text[], ${list.map((s) => s.work.createdAt.toISOString())}::timestamp[],
                           ${list.map((s) => s.at.toISOString())}::timestamp[])
        AS i("deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", "webhookId", "createdAt", "at")),
    deliveries AS (
      UPDATE "WebhookDelivery" d SET "status" = 'succeeded', "attempts" = i."number", "lastAttemptAt" = i."at",
        "nextAttemptAt" = NULL, "claimedUntil" = NULL, "completedAt" = i."at", "updatedAt" = i."at"
      FROM input i WHERE d."id" = i."deliveryId" AND d."createdAt" = i."createdAt"
        ${partitionRange(Prisma.sql`d."createdAt"`, keys)}
        AND d."status"::text = 'pending' AND d."attempts" = i."number" - 1
      RETURNING d."id" AS "deliveryId"),
    attempts AS (
      INSERT INTO "WebhookAttempt" ("deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", "createdAt")
      -- each attempt at its own time (when its request ended), not the batch's: the attempts' times say what was in flight
      SELECT i."deliveryId", i."number", i."statusCode", i."durationMs", i."responseBody", i."error", i."at" FROM input i JOIN deliveries USING ("deliveryId")),
    endpoints AS (
      UPDATE "Webhook" SET "failingSince" = NULL, "updatedAt" = ${at}::timestamp WHERE "id" IN (SELECT "webhookId" FROM input) AND "failingSince" IS NOT NULL)`;
}

/**
 * A failed attempt in one statement: the attempt row, the delivery retried later (`pending`) or `failed`, and the
 * endpoint's failing streak started or, with `disabledReason`, the endpoint disabled. Writes only while the attempt
 * is not recorded yet (the delivery pending with the attempts before it), so a repeat is harmless.
 */
export async function recordFailedAttempt(
  db: Db,
  { work, result, at }: Attempt,
  outcome: { status: 'pending' | 'failed'; nextAttemptAt: string | null; completedAt: string | null; disabledReason: 'gone' | 'failing' | null },
): Promise<void> {
  const { status, nextAttemptAt, completedAt, disabledReason } = outcome;
  const number = work.attempts + 1;
  const when = at.toISOString();
  await db.$executeRaw`
    WITH delivery AS (
      UPDATE "WebhookDelivery" SET "status" = ${status}::"WebhookDeliveryStatus", "attempts" = ${number}::int,
        "lastAttemptAt" = ${when}::timestamp, "nextAttemptAt" = ${nextAttemptAt}::timestamp, "claimedUntil" = NULL, "completedAt" = ${completedAt}::timestamp, "updatedAt" = ${when}::timestamp
      WHERE "id" = ${work.deliveryId} AND "createdAt" = ${work.createdAt.toISOString()}::timestamp AND "status" = 'pending' AND "attempts" = ${number - 1}::int
      RETURNING "id"),
    attempt AS (
      INSERT INTO "WebhookAttempt" ("deliveryId", "number", "statusCode", "durationMs", "responseBody", "error", "createdAt")
      SELECT "id", ${number}::int, ${result.statusCode}::int, ${Math.round(result.durationMs)}::int, ${storable(result.responseBody)}::text,
        ${storable(result.error)}::text, ${when}::timestamp FROM delivery)
    UPDATE "Webhook" SET
      "failingSince" = COALESCE("failingSince", ${when}::timestamp),
      "enabled" = "enabled" AND ${disabledReason}::text IS NULL,
      "disabledReason" = COALESCE(${disabledReason}::text, "disabledReason"),
      "disabledAt" = CASE WHEN ${disabledReason}::text IS NULL THEN "disabledAt" ELSE ${when}::timestamp END,
      "updatedAt" = ${when}::timestamp
    WHERE "id" = ${work.webhookId} AND EXISTS (SELECT 1 FROM delivery)
      AND (CASE WHEN ${disabledReason}::text IS NULL THEN "failingSince" IS NULL ELSE "enabled" END)`;
}

/** Closes a still-pending delivery as failed without an attempt (its endpoint was disabled). */
export async function failPendingDelivery(db: Db, delivery: { id: string; createdAt: Date }, completedAt: Date): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id: delivery.id, createdAt: delivery.createdAt, status: 'pending' },
    data: { status: 'failed', completedAt, nextAttemptAt: null },
  });
}

/** Clears a delivery's claim, only while it is still pending with the same attempts (no attempt recorded since). */
export async function clearDeliveryClaim(db: Db, delivery: { id: string; createdAt: Date; attempts: number }): Promise<void> {
  await db.$executeRaw`
    UPDATE "WebhookDelivery" SET "claimedUntil" = NULL
    WHERE "id" = ${delivery.id} AND "createdAt" = ${delivery.createdAt.toISOString()}::timestamp AND "status"::text = 'pending' AND "attempts" = ${delivery.attempts}::int`;
}

/**
 * The deliveries still `pending` whose attempt was due before `cutoff`, most overdue first, each with its lane: a
 * broadcast's message's events are in the bulk one (as eventsCte put them).
 */
export type OverdueDelivery = { id: string; orgId: string; createdAt: Date; nextAttemptAt: Date; isBulk: boolean };

/** Up to `limit` pending deliveries due before `cutoff`, by due time and id, after `after` (the last of a previous page). */
export async function selectOverdueDeliveries(db: Db, cutoff: Date, { after, limit }: { after: { at: Date; id: string } | null; limit: number }): Promise<OverdueDelivery[]> {
  const page = after ? Prisma.sql`AND (d."nextAttemptAt", d."id") > (${after.at.toISOString()}::timestamp, ${after.id})` : Prisma.empty;
  return db.$queryRaw<OverdueDelivery[]>`
    SELECT d."id", d."orgId", d."createdAt", d."nextAttemptAt", coalesce(e."type" LIKE 'message.%' AND e."data"->>'broadcastId' IS NOT NULL, false) AS "isBulk"
    FROM "WebhookDelivery" d LEFT JOIN "Event" e ON e."id" = d."eventId"
    WHERE d."status" = 'pending' AND d."nextAttemptAt" < ${cutoff.toISOString()}::timestamp ${page}
    ORDER BY d."nextAttemptAt", d."id" LIMIT ${limit}::int`;
}

/** An endpoint's latest deliveries with their last attempt; with `mode`, those a key of that mode may see. */
export async function listRecentDeliveries(db: Db, webhookId: string, mode: KeyMode | undefined, take: number) {
  return db.webhookDelivery.findMany({
    where: { webhookId, AND: [visibleToMode(mode)] },
    orderBy: newestFirst,
    take,
    include: withLastAttempt,
  });
}

/** One page of an endpoint's deliveries with their last attempt, optionally of one status; with `mode`, those a key of that mode may see. */
export async function listDeliveriesPage(
  db: Db,
  webhookId: string,
  filter: { status?: WebhookDeliveryRow['status']; mode: KeyMode | undefined },
  { where, ...page }: { where: Prisma.WebhookDeliveryWhereInput } & Pick<Prisma.WebhookDeliveryFindManyArgs, 'orderBy' | 'take' | 'skip'>,
) {
  return db.webhookDelivery.findMany({
    where: { webhookId, ...(filter.status ? { status: filter.status } : {}), ...where, AND: [visibleToMode(filter.mode)] },
    ...page,
    include: withLastAttempt,
  });
}

/** A delivery just made, with its last attempt (none yet). */
export async function getDeliveryWithLastAttempt(db: Db, id: string) {
  return db.webhookDelivery.findUniqueOrThrow({ where: { id }, include: withLastAttempt });
}

/** One delivery of an organization's endpoint; with `mode`, only one a key of that mode may see. */
export type DeliveryOf = { orgId: string; webhookId: string; deliveryId: string; mode: KeyMode | undefined };

/**
 * One delivery of the organization's endpoint with every attempt, oldest first; with `mode`, null for one of another
 * mode's endpoint or about another mode's message or broadcast.
 */
export async function findDeliveryWithAttempts(db: Db, { orgId, webhookId, deliveryId, mode }: DeliveryOf): Promise<DeliveryWithAttempts | null> {
  return db.webhookDelivery.findFirst({
    where: { id: deliveryId, webhookId, orgId, ...(mode && { webhook: { mode } }), AND: [visibleToMode(mode)] },
    include: { attemptsLog: { orderBy: { number: 'asc' } } },
  });
}

/** Makes a delivery pending and due `now`, whatever its status; undefined when there is none (or, with `mode`, not one a key of that mode may see). */
export async function reopenDelivery(tx: Prisma.TransactionClient, { orgId, webhookId, deliveryId, mode }: DeliveryOf, now: Date): Promise<WebhookDeliveryRow | undefined> {
  const [updated] = await tx.webhookDelivery.updateManyAndReturn({
    where: { id: deliveryId, webhookId, orgId, AND: [visibleToMode(mode)] },
    data: { status: 'pending', nextAttemptAt: now, completedAt: null },
  });
  return updated;
}

/** What a replay matched (up to one more than its cap), how many it re-delivered, and the jobs to enqueue at once. */
export type ReplayRow = { matched: number; count: number; jobIds: string[] };

/**
 * Re-delivers an endpoint's deliveries created in `[since, until)` of `statuses` in ONE statement: makes them
 * pending and writes their jobs' outbox rows (`queue`), unless more than `max` match (then nothing changes). Returns
 * the first `dispatchAtOnce` job ids, oldest first.
 */
export async function replayDeliveries(
  tx: Prisma.TransactionClient,
  replay: { orgId: string; webhookId: string; since: string; until: string; statuses: string[]; mode: KeyMode | undefined; now: string; max: number; queue: string },
  dispatchAtOnce: number,
): Promise<ReplayRow | undefined> {
  const { orgId, webhookId, since, until, statuses, mode, now, max, queue } = replay;
  // one more than the cap is enough to know the range is too wide: the count never reads further
  const [row] = await tx.$queryRaw<ReplayRow[]>`
    WITH matching AS (
      SELECT "id", "createdAt" FROM "WebhookDelivery"
      WHERE "webhookId" = ${webhookId} AND "orgId" = ${orgId} AND "createdAt" >= ${since}::timestamp AND "createdAt" < ${until}::timestamp
        AND "status" = ANY (${statuses}::text[]::"WebhookDeliveryStatus"[])
        AND (${mode ?? null}::"ApiKeyMode" IS NULL OR "mode" IS NULL OR "mode" = ${mode ?? null}::"ApiKeyMode")
      LIMIT ${max + 1}),
    replayed AS (
      UPDATE "WebhookDelivery" d SET "status" = 'pending', "nextAttemptAt" = ${now}::timestamp, "completedAt" = NULL, "updatedAt" = ${now}::timestamp
      FROM matching m WHERE d."id" = m."id" AND d."createdAt" = m."createdAt" AND (SELECT count(*) FROM matching) <= ${max}
      -- the SQL form of redeliveryJobId
      RETURNING d."id" || '.redeliver-' || d."attempts" AS "jobId", d."createdAt"),
    jobs AS (
      INSERT INTO "OutboxEntry" ("queue", "jobId", "createdAt")
      SELECT ${queue}, "jobId", now() AT TIME ZONE 'UTC' FROM replayed ON CONFLICT DO NOTHING)
    SELECT (SELECT count(*)::int FROM matching) AS "matched", count(*)::int AS "count",
      ARRAY(SELECT "jobId" FROM replayed ORDER BY "createdAt" LIMIT ${dispatchAtOnce}) AS "jobIds" FROM replayed`;
  return row;
}
