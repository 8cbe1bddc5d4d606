import { createHash } from 'node:crypto';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { groupCommit } from './group-commit.ts';
import {
  deleteReservation,
  findIdempotencyRecord,
  insertReservations,
  keyIdentity,
  renewReservation,
  storeAnswer,
  type IdempotencyKeyId,
  type Reservation,
} from './idempotency.store.ts';

export type { IdempotencyKeyId };

/** `first`: the key is this request's, reserved at `reservedAt` (what `releaseIdempotentRequest` frees it by). */
export type IdempotencyOutcome = { kind: 'first'; reservedAt: Date } | { kind: 'replay'; status: number; body: string };

/** A digest of what makes two requests "the same": method, path and body. */
export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method} ${path}\n${body}`).digest('hex');
}

/**
 * Reserves `key` for this request (keys are kept per organization and key mode: a live request never replays a
 * test request's answer), or tells how to answer a repeat: a replay of the stored response, or CONFLICT when the
 * body differs or the first request is still running. The reservation is a lease of `idempotencyLeaseMs` that the
 * request keeps alive with `holdIdempotentRequest`; a reservation whose lease ran out (its request died) and an
 * expired record (24 h) are taken over.
 */
export async function beginIdempotentRequest(deps: Pick<Deps, 'db' | 'now' | 'batchers'>, keyId: IdempotencyKeyId, fingerprint: string): Promise<IdempotencyOutcome> {
  const { db, now, batchers } = deps;
  const { orgId, mode, key } = keyId;
  const at = now();
  let reserved: boolean;
  try {
    reserved = await batchers.idempotencyReservations({ orgId, mode, key, fingerprint, at });
  } catch (error) {
    // The reservation may have committed with its reply lost (a dropped connection): free it, or every retry would
    // be refused as still in progress until the lock ran out.
    await releaseIdempotentRequest({ db }, keyId, at).catch(() => undefined);
    throw error;
  }
  if (reserved) return { kind: 'first', reservedAt: at };
  const repeat = await answerOfRepeat(deps, keyId, fingerprint);
  return repeat ?? beginIdempotentRequest(deps, keyId, fingerprint); // deleted meanwhile
}

/**
 * How to answer a request whose key another request holds: a replay of the stored response, or CONFLICT when the
 * body differs or the first request is still running; null when the key is free again (its record deleted meanwhile).
 */
export async function answerOfRepeat(
  { db }: Pick<Deps, 'db'>,
  { orgId, mode, key }: IdempotencyKeyId,
  fingerprint: string,
): Promise<Extract<IdempotencyOutcome, { kind: 'replay' }> | null> {
  const existing = await findIdempotencyRecord(db, orgId, mode, key);
  if (!existing) return null;
  if (existing.requestHash !== fingerprint) {
    throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request body');
  }
  if (existing.responseStatus === null || existing.responseBody === null) {
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
  }
  return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
}

/** The reservations of the requests that arrive together, one statement (see createIdempotencyReservations). */
export type IdempotencyReservations = (reservation: Reservation) => Promise<boolean>;

/**
 * Reservations of Idempotency-Keys, of all the requests that reach them at the same time, in ONE statement (group
 * commit): every SDK call and every SMTP mail reserves its key first, and alone each was a commit of its own (the
 * larger part of Postgres's work per SMTP mail). Each row inserts, or takes over a record that expired, or whose
 * first request died, or that is this very reservation (a group run again after its reply was lost); true when the
 * key is the request's. A key asked for twice in one group goes to the first asker: the second finds it in progress.
 * Made with the dependencies.
 * @example const reserve = createIdempotencyReservations(deps); const isMine = await reserve({ orgId, mode, key, fingerprint, at });
 */
export function createIdempotencyReservations(deps: Pick<Deps, 'db' | 'config'>): IdempotencyReservations {
  return groupCommit(
    async (reservations: Reservation[]) => {
      // ON CONFLICT may change a row once per statement: a repeated key goes in once, its first asker's
      const firsts = new Map<string, Reservation>();
      for (const r of reservations) if (!firsts.has(keyIdentity(r))) firsts.set(keyIdentity(r), r);
      const taken = await insertReservations(deps.db, [...firsts.values()], deps.config.idempotencyLeaseMs);
      const isTaken = new Set(taken.map(keyIdentity));
      return reservations.map((r) => isTaken.has(keyIdentity(r)) && firsts.get(keyIdentity(r)) === r);
    },
    { maxSize: 500, maxInFlight: Math.max(1, Math.floor(deps.config.databasePoolSize / 4)) },
  );
}

/**
 * Keeps this request's reservation while it runs: renews its lease every third of `idempotencyLeaseMs`, so a slow
 * request keeps its key however long it takes, while one whose process died stops renewing and frees the key within
 * a lease. Returns the function that stops renewing; call it when the request ends, whatever the outcome.
 * @example const stop = holdIdempotentRequest(deps, { orgId, mode, key }, outcome.reservedAt); try { ... } finally { stop(); }
 */
export function holdIdempotentRequest({ db, now, config, logger }: Pick<Deps, 'db' | 'now' | 'config' | 'logger'>, keyId: IdempotencyKeyId, reservedAt: Date): () => void {
  const leaseMs = config.idempotencyLeaseMs;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const renew = async () => {
    try {
      // only this request's reservation, and only while unanswered
      await renewReservation(db, keyId, reservedAt, new Date(now().getTime() + leaseMs));
    } catch (error) {
      // a passing database failure: the next renewal, a third of a lease later, tries again
      logger.warn({ err: error, orgId: keyId.orgId }, 'could not renew an Idempotency-Key reservation');
    }
    schedule();
  };
  // one renewal at a time: the next is scheduled when the previous one has finished
  const schedule = () => {
    if (!stopped) timer = setTimeout(() => void renew(), Math.floor(leaseMs / 3));
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Stores the first response so repeats replay it. The request's work is committed by now: if this write were lost,
 * the record would be taken over once its lock ran out and the caller's retry would do the work a second time, so
 * a passing database failure (a dropped connection, a failover) is waited out rather than given up on.
 */
export async function completeIdempotentRequest({ db }: Pick<Deps, 'db'>, keyId: IdempotencyKeyId, status: number, body: string): Promise<void> {
  // a write that stored its answer itself (storeAnswersSql) has nothing left to do here
  await retryWrite(() => storeAnswer(db, { ...keyId, status, body }));
}

/**
 * The answer an operation commits together with its work, under the request's Idempotency-Key. With `reserve`
 * (the request's fingerprint), the key is not reserved yet: the work's statement reserves it, and writes nothing
 * when another request holds it (`IdempotencyKeyTaken`).
 */
export type IdempotentAnswer<T> = { key: string; status: number; body: (result: T) => unknown; reserve?: { fingerprint: string } };

/** The key of an `IdempotentAnswer` with `reserve` is another request's: nothing was written; ask `answerOfRepeat`. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('The Idempotency-Key is held by another request');
  }
}

/** Tries `write` up to 7 times over about 15 s (0.2 s doubling to 5 s between tries); throws the last error. */
async function retryWrite(write: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await write();
      return;
    } catch (error) {
      if (attempt === 7) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt)));
    }
  }
}

/**
 * Frees the key after a failure that changed nothing (a 5xx), so the caller's retry runs again. Waited out like
 * `completeIdempotentRequest` when the database is away: otherwise the key stays in flight (409) for a minute.
 */
export async function releaseIdempotentRequest({ db }: Pick<Deps, 'db'>, keyId: IdempotencyKeyId, reservedAt: Date): Promise<void> {
  await retryWrite(() => deleteReservation(db, keyId, reservedAt));
}
