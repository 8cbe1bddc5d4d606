import { Prisma, queryRows, type Db, type IdempotencyRecord } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

/** How long a stored response is replayed. */
const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** One request's reservation of its key. */
export type Reservation = { orgId: string; mode: KeyMode; key: string; fingerprint: string; at: Date };

/** An Idempotency-Key as kept: per organization and key mode. */
export type IdempotencyKeyId = { orgId: string; mode: KeyMode; key: string };

/** A key as one string (keys are kept per organization and mode), for finding a key asked for twice in one group. */
export const keyIdentity = (k: Pick<Reservation, 'orgId' | 'mode' | 'key'>) => `${k.orgId}\u0000${k.mode}\u0000${k.key}`;

/** An answer to store under an Idempotency-Key, with the key's organization and mode. */
export type KeyedAnswer = { orgId: string; mode: KeyMode; key: string; status: number; body: unknown };

/**
 * Inserts the reservations (each key once), or takes over a record that expired, or whose first request died (its
 * lease ran out), or that is this very reservation (a group run again after its reply was lost). Returns the keys
 * taken. Through pg, prepared by name (queryRows): one shape whatever the number of rows.
 */
export async function insertReservations(db: Db, rows: Reservation[], leaseMs: number): Promise<{ orgId: string; mode: KeyMode; key: string }[]> {
  return queryRows<{ orgId: string; mode: KeyMode; key: string }>(
    db,
    Prisma.sql`
    INSERT INTO "IdempotencyRecord" ("orgId", "mode", "key", "requestHash", "lockedUntil", "expiresAt", "createdAt")
    SELECT "orgId", "mode"::"ApiKeyMode", "key", "requestHash", "lockedUntil", "expiresAt", "createdAt"
    FROM unnest(${rows.map((r) => r.orgId)}::text[], ${rows.map((r) => r.mode)}::text[], ${rows.map((r) => r.key)}::text[],
                ${rows.map((r) => r.fingerprint)}::text[], ${rows.map((r) => new Date(r.at.getTime() + leaseMs).toISOString())}::timestamp[],
                ${rows.map((r) => new Date(r.at.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString())}::timestamp[], ${rows.map((r) => r.at.toISOString())}::timestamp[])
      AS r("orgId", "mode", "key", "requestHash", "lockedUntil", "expiresAt", "createdAt")
    ON CONFLICT ("orgId", "mode", "key") DO UPDATE
      SET "requestHash" = EXCLUDED."requestHash", "lockedUntil" = EXCLUDED."lockedUntil", "expiresAt" = EXCLUDED."expiresAt",
          "createdAt" = EXCLUDED."createdAt", "responseStatus" = NULL, "responseBody" = NULL
      WHERE "IdempotencyRecord"."expiresAt" <= EXCLUDED."createdAt"
         OR ("IdempotencyRecord"."responseStatus" IS NULL AND "IdempotencyRecord"."requestHash" = EXCLUDED."requestHash"
             AND ("IdempotencyRecord"."lockedUntil" <= EXCLUDED."createdAt" OR "IdempotencyRecord"."createdAt" = EXCLUDED."createdAt"))
    RETURNING "orgId", "mode"::text AS "mode", "key"`,
  );
}

/** The record of a key, if any. */
export function findIdempotencyRecord(db: Db, orgId: string, mode: KeyMode, key: string): Promise<IdempotencyRecord | null> {
  return db.idempotencyRecord.findUnique({ where: { orgId_mode_key: { orgId, mode, key } } });
}

/** Moves the lease of the reservation made at `reservedAt` to `until`, while it is unanswered. */
export async function renewReservation(db: Db, { orgId, mode, key }: IdempotencyKeyId, reservedAt: Date, until: Date): Promise<void> {
  await db.idempotencyRecord.updateMany({ where: { orgId, mode, key, responseStatus: null, createdAt: reservedAt }, data: { lockedUntil: until } });
}

/** Stores the answer of a reservation still unanswered (one that stored its answer with its work is left alone). */
export async function storeAnswer(db: Db, answer: KeyedAnswer & { body: string }): Promise<void> {
  const { orgId, mode, key, status, body } = answer;
  await db.idempotencyRecord.updateMany({ where: { orgId, mode, key, responseStatus: null }, data: { responseStatus: status, responseBody: body } });
}

/** Deletes the reservation made at `reservedAt`, while unanswered: another may have taken the key over since. */
export async function deleteReservation(db: Db, { orgId, mode, key }: IdempotencyKeyId, reservedAt: Date): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { orgId, mode, key, responseStatus: null, createdAt: reservedAt } });
}

/**
 * The UPDATE that stores answers (any number, one per key) of reservations made before, for a CTE in the statement
 * that does the work: then the work and its answers commit together, and a caller who never heard back (the commit's
 * reply lost with the connection) gets the answer replayed on retry instead of the work done twice.
 */
export function storeAnswersSql(answers: KeyedAnswer[]): Prisma.Sql {
  if (answers.length === 0) return Prisma.sql`SELECT 1`;
  return Prisma.sql`
    UPDATE "IdempotencyRecord" r SET "responseStatus" = a."status", "responseBody" = a."body"
    FROM unnest(${answers.map((a) => a.orgId)}::text[], ${answers.map((a) => a.mode)}::text[], ${answers.map((a) => a.key)}::text[],
                ${answers.map((a) => a.status)}::int[], ${answers.map((a) => JSON.stringify(a.body))}::text[]) AS a("orgId", "mode", "key", "status", "body")
    WHERE r."orgId" = a."orgId" AND r."mode" = a."mode"::"ApiKeyMode" AND r."key" = a."key" AND r."responseStatus" IS NULL`;
}

/**
 * The INSERT that reserves keys and stores their answers at once (any number, each key once), for a CTE in the
 * statement that does the work: a key is taken when it is new, or its record expired, or its first request died
 * (lease over). Returns ("orgId", "mode", "key") of the keys taken; the statement writes the work of those only. A
 * key another request holds (answered, or in progress) is not taken: its caller replays or is told it is in
 * progress. Nothing is left in progress, so there is no lease to keep and nothing to free after a failure.
 */
export function reserveAnsweredSql(answers: (KeyedAnswer & { fingerprint: string; at: Date })[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "IdempotencyRecord" ("orgId", "mode", "key", "requestHash", "lockedUntil", "expiresAt", "createdAt", "responseStatus", "responseBody")
    SELECT "orgId", "mode"::"ApiKeyMode", "key", "requestHash", "createdAt", "expiresAt", "createdAt", "status", "body"
    FROM unnest(${answers.map((a) => a.orgId)}::text[], ${answers.map((a) => a.mode)}::text[], ${answers.map((a) => a.key)}::text[],
                ${answers.map((a) => a.fingerprint)}::text[], ${answers.map((a) => new Date(a.at.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString())}::timestamp[],
                ${answers.map((a) => a.at.toISOString())}::timestamp[], ${answers.map((a) => a.status)}::int[], ${answers.map((a) => JSON.stringify(a.body))}::text[])
      AS r("orgId", "mode", "key", "requestHash", "expiresAt", "createdAt", "status", "body")
    ON CONFLICT ("orgId", "mode", "key") DO UPDATE
      SET "requestHash" = EXCLUDED."requestHash", "lockedUntil" = EXCLUDED."lockedUntil", "expiresAt" = EXCLUDED."expiresAt",
          "createdAt" = EXCLUDED."createdAt", "responseStatus" = EXCLUDED."responseStatus", "responseBody" = EXCLUDED."responseBody"
      WHERE "IdempotencyRecord"."expiresAt" <= EXCLUDED."createdAt"
         OR ("IdempotencyRecord"."responseStatus" IS NULL AND "IdempotencyRecord"."lockedUntil" <= EXCLUDED."createdAt")
    RETURNING "orgId", "mode"::text AS "mode", "key"`;
}
