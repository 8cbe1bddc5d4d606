import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, type Prisma } from './generated/client.ts';

export type Db = PrismaClient;

/** At most this many distinct statements are prepared by name (per process; each connection prepares its own). */
const MAX_PREPARED_STATEMENTS = 200;

/**
 * Names statements so that each connection parses and plans one only once: for the send path, parse and plan were
 * two thirds of Postgres's time per statement. The cap bounds the server memory they hold, since some SQL is built
 * per request (segment criteria); statements past it run unnamed, as before. An empty name means unnamed to pg.
 */
function statementNamer(): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= MAX_PREPARED_STATEMENTS) return '';
    const name = `s${createHash('sha1').update(sql).digest('base64url')}`;
    names.set(sql, name);
    return name;
  };
}

/**
 * Creates a Prisma client over a pg pool. `preparedStatements: false` for a connection pooler that cannot keep
 * them (PgBouncer before 1.21 in transaction mode): then the connections carry no session settings either. `genericPlans`: each prepared statement is planned once, not at
 * each run. Close it with `closeDb`.
 * @example const db = createDb({ databaseUrl: config.databaseUrl, poolSize: 10 });
 */
export function createDb(options: {
  databaseUrl: string;
  poolSize?: number;
  preparedStatements?: boolean;
  genericPlans?: boolean;
  /** Postgres cancels a statement that runs longer (`statement_timeout`); none when absent or 0. */
  statementTimeoutMs?: number;
}): Db {
  const isPrepared = options.preparedStatements !== false;
  const poolSize = options.poolSize ?? 10;
  const timeoutMs = options.statementTimeoutMs ?? 0;
  const pool = openPool(options.databaseUrl, poolSize, { genericPlans: Boolean(options.genericPlans) && isPrepared, statementTimeoutMs: timeoutMs, pooled: !isPrepared });
  const nameOf = isPrepared ? statementNamer() : () => '';
  // the pools are closed by closeDb, which waits for their connections to end
  const adapter = new PrismaPg(pool, { statementNameGenerator: nameOf });
  const db = new PrismaClient({ adapter });
  let generic: pg.Pool | null = options.genericPlans || !isPrepared ? pool : null;
  pools.set(db, {
    pool,
    nameOf,
    // opened on first use: most processes never run a statement that asks for it
    genericPool: () => {
      generic ??= openPool(options.databaseUrl, Math.max(1, Math.floor(poolSize / 2)), { genericPlans: true, statementTimeoutMs: timeoutMs, pooled: false });
      return generic;
    },
    close: async () => {
      await db.$disconnect();
      await Promise.all([pool.end(), generic && generic !== pool ? generic.end() : undefined]);
    },
  });
  return db;
}

/**
 * A pg pool whose connections run without JIT, and with `genericPlans` plan each prepared statement once. Postgres
 * plans a prepared statement again at every run while that plan looks cheaper than its generic one: for statements
 * over `unnest` of array parameters it always does (it counts the array's items when planning for the values, and
 * guesses 100 without them), and planning the send-worker's grouped status changes cost more than running them.
 * `statementTimeoutMs` (when not 0) bounds every statement: one expensive request cannot hold a connection (and
 * the pool every other organization shares) for minutes.
 * The settings are startup parameters (`options`), part of the session from its first statement, never a `SET`.
 * `pooled` (a pooler in transaction mode in front): none at all, since PgBouncer refuses `options` and a session `SET`
 * would stay on a server connection other processes use next; the pooler's `connect_query` sets them
 * (docs/production-and-scaling.md).
 */
function openPool(databaseUrl: string, max: number, settings: { genericPlans: boolean; statementTimeoutMs: number; pooled: boolean }): pg.Pool {
  // No JIT: Postgres compiles a plan whose estimated cost passes jit_above_cost, and for a page of message.list over
  // many partitions that took 2.2 s against 2 ms to run it (an OLTP statement never earns its compile back).
  const options = [
    '-c jit=off',
    ...(settings.genericPlans ? ['-c plan_cache_mode=force_generic_plan'] : []),
    ...(settings.statementTimeoutMs > 0 ? [`-c statement_timeout=${Math.floor(settings.statementTimeoutMs)}`] : []),
  ].join(' ');
  const pool = new pg.Pool({ connectionString: databaseUrl, max, ...(!settings.pooled && { options }) });
  // An idle connection that fails (Postgres restarting, a terminated backend, a dropped database) leaves the pool by
  // itself; without a listener its 'error' event would end the process. Prisma listens only while connected (not
  // from $disconnect until the pool has ended), and never on the generic-plan pool.
  pool.on('error', () => {});
  return pool;
}

type PoolEntry = { pool: pg.Pool; nameOf: (query: { sql: string }) => string; genericPool(): pg.Pool; close(): Promise<void> };
const pools = new WeakMap<Db, PoolEntry>();

/** Closes a client made by createDb and its pools. */
export function closeDb(db: Db): Promise<void> {
  return poolOf(db).close();
}

/**
 * The pg pool under a client made by createDb, for the few statements Prisma handles badly: a Buffer parameter
 * through Prisma's raw queries costs several times its size in memory (measured: 45 MiB for 9 MiB), while pg sends
 * it as a binary parameter as it is.
 * @example await pgPoolOf(db).query('INSERT INTO "AttachmentContent" ("key", "orgId", "bytes") VALUES ($1, $2, $3)', [key, orgId, bytes]);
 */
export function pgPoolOf(db: Db): pg.Pool {
  return poolOf(db).pool;
}

function poolOf(db: Db) {
  const entry = pools.get(db);
  if (!entry) throw new Error('pgPoolOf: this client was not made by createDb');
  return entry;
}

const TIMESTAMP_OID = 1114;

/** A `timestamp` (no zone) as Prisma reads it: the columns hold UTC, whatever the process's time zone. */
const utcDate = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);

/** pg's parsers, but `timestamp` read as UTC: pg alone reads it in the process's time zone (TZ). */
const utcTimestamps = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === TIMESTAMP_OID ? utcDate : pg.types.getTypeParser(oid, format)),
};

/**
 * Runs a statement through pg, prepared by name on each connection like Prisma's (unless prepared statements are
 * off): for large statements that run often, parsing and planning each time costs more than running them. Columns
 * come back as Prisma's raw queries give them (a `timestamp` as a Date read as UTC) at a fraction of its cost.
 * `genericPlan` runs it on connections that plan it once (a second pool of half the size, opened on first use): for
 * a statement over many partitions whose best plan does not depend on its values, where planning it for them at each
 * run cost as much as running it. Not for a statement whose best plan does (a filter on a skewed array element).
 * @example const { rows } = await queryPrepared<{ id: string }>(db, Prisma.sql`SELECT "id" FROM "Message" WHERE "orgId" = ${orgId}`);
 */
export function queryPrepared<Row extends pg.QueryResultRow>(
  db: Db,
  statement: { text: string; values: unknown[] },
  options: { genericPlan?: boolean } = {},
): Promise<pg.QueryResult<Row>> {
  const entry = poolOf(db);
  const pool = options.genericPlan ? entry.genericPool() : entry.pool;
  const name = entry.nameOf({ sql: statement.text });
  return pool.query<Row>({ ...(name && { name }), text: statement.text, values: statement.values, types: utcTimestamps });
}

/**
 * The rows of a statement, through pg (`queryPrepared`) when `db` is a client made by createDb, and through
 * Prisma's raw query inside one of its transactions (a transaction's connection is Prisma's). For statements that run
 * both ways, where Prisma's raw-query plumbing cost more than the round trip. Columns come back alike but for `int8`,
 * which pg gives as a string: cast counts to int.
 * @example const rows = await queryRows<{ id: string }>(tx, Prisma.sql`UPDATE "Message" SET ... RETURNING "id"`);
 */
export async function queryRows<Row extends pg.QueryResultRow>(db: Db | Prisma.TransactionClient, statement: Prisma.Sql): Promise<Row[]> {
  return pools.has(db as Db) ? (await queryPrepared<Row>(db as Db, statement)).rows : (db as Prisma.TransactionClient).$queryRaw<Row[]>(statement);
}
