import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { testDatabaseUrl, waitFor } from '@tidings/testing';
import { closeDb, createDb, pgPoolOf, Prisma, queryPrepared, queryRows, type Db } from '../src/index.ts';

/** The statements the one pooled connection has prepared by name (pg_prepared_statements is per session). */
const preparedCount = async (db: Db) => {
  const [{ count }] = await db.$queryRawUnsafe<{ count: number }[]>('SELECT count(*)::int AS count FROM pg_prepared_statements WHERE name <> $1', 'nothing');
  return count;
};

describe('prepared statements', () => {
  const { url } = testDatabaseUrl();
  const opened: Db[] = [];
  const open = (preparedStatements?: boolean, genericPlans?: boolean) => {
    const db = createDb({ databaseUrl: url, poolSize: 1, preparedStatements, genericPlans });
    opened.push(db);
    return db;
  };
  afterAll(() => Promise.all(opened.map((db) => closeDb(db))));

  it('prepares each statement once per connection and runs it again by name', async () => {
    const db = open();
    for (let i = 0; i < 3; i++) expect(await db.$queryRaw`SELECT ${i}::int AS n`).toEqual([{ n: i }]);
    const afterOne = await preparedCount(db);
    await db.$queryRaw`SELECT ${4}::int AS n`;
    await db.$queryRaw`SELECT ${'x'}::text AS s`;
    // the repeated statement added nothing; the new one (and the counting query itself, prepared once) one more
    expect(await preparedCount(db)).toBe(afterOne + 1);
  });

  it('stops naming new statements past the cap, and they still run', async () => {
    const db = open();
    for (let i = 0; i < 230; i++) expect(await db.$queryRawUnsafe(`SELECT ${i} AS n`)).toEqual([{ n: i }]);
    expect(await preparedCount(db)).toBeLessThanOrEqual(200);
  });

  it('prepares nothing by name when turned off (for PgBouncer before 1.21)', async () => {
    const db = open(false);
    await db.$queryRaw`SELECT ${1}::int AS n`;
    await db.$queryRaw`SELECT ${1}::int AS n`;
    expect(await preparedCount(db)).toBe(0);
  });

  it('with genericPlans, plans a statement over unnest of an array once instead of at every run', async () => {
    /** How often the one statement over `unnest` was planned for its values (custom) and reused as planned once (generic). */
    const plansOf = async (db: Db) => {
      for (let i = 1; i <= 8; i++) await db.$queryRaw`SELECT count(*)::int AS n FROM unnest(${Array.from({ length: i }, (_, k) => `id${k}`)}::text[])`;
      const [plans] = await db.$queryRawUnsafe<{ custom: number; generic: number }[]>(
        `SELECT custom_plans::int AS custom, generic_plans::int AS generic FROM pg_prepared_statements WHERE statement LIKE '%unnest%' AND statement NOT LIKE '%pg_prepared_statements%'`,
      );
      return plans;
    };
    // without it Postgres plans at least the first five runs for their values, and every run of the send-worker's
    // grouped status changes, whose generic plan it estimates for 100 items
    expect((await plansOf(open())).custom).toBeGreaterThanOrEqual(5);
    expect(await plansOf(open(undefined, true))).toEqual({ custom: 0, generic: 8 });
  });

  it('turns JIT compilation off on every connection (it cost seconds on list pages it would have sped up by microseconds)', async () => {
    for (const db of [open(), open(undefined, true)]) {
      expect(await db.$queryRawUnsafe('SHOW jit')).toEqual([{ jit: 'off' }]);
    }
  });

  it('sends its settings as startup parameters, and none behind a pooler (prepared statements off): the pooler sets them (connect_query)', async () => {
    const direct = createDb({ databaseUrl: url, poolSize: 1, statementTimeoutMs: 1234 });
    const pooled = createDb({ databaseUrl: url, poolSize: 1, preparedStatements: false, statementTimeoutMs: 1234 });
    opened.push(direct, pooled);
    // a startup parameter's source is `client`; a session SET's would be `session`
    const settings = (db: Db) =>
      db.$queryRawUnsafe<{ name: string; setting: string; source: string }[]>(
        `SELECT name, setting, source FROM pg_settings WHERE name IN ('jit', 'statement_timeout') ORDER BY name`,
      );
    expect(await settings(direct)).toEqual([
      { name: 'jit', setting: 'off', source: 'client' },
      { name: 'statement_timeout', setting: '1234', source: 'client' },
    ]);
    for (const row of await settings(pooled)) expect(row.source).not.toMatch(/client|session/);
  });

  it('runs a statement through pg prepared by name (queryPrepared), and unnamed when prepared statements are off', async () => {
    const named = open();
    const statement = { text: 'SELECT $1::int + 1 AS n', values: [41] };
    expect((await queryPrepared<{ n: number }>(named, statement)).rows).toEqual([{ n: 42 }]);
    expect((await queryPrepared<{ n: number }>(named, statement)).rows).toEqual([{ n: 42 }]);
    const [{ count }] = await named.$queryRawUnsafe<{ count: number }[]>(`SELECT count(*)::int AS count FROM pg_prepared_statements WHERE statement = $1`, statement.text);
    expect(count).toBe(1);
    const unnamed = open(false);
    expect((await queryPrepared<{ n: number }>(unnamed, statement)).rows).toEqual([{ n: 42 }]);
    expect(await preparedCount(unnamed)).toBe(0);
  });

  it('runs a statement asked to plan once on connections that plan each statement once, and closes them with closeDb', async () => {
    const db = createDb({ databaseUrl: url, poolSize: 4 });
    const mode = async (genericPlan: boolean) =>
      (await queryPrepared<{ mode: string }>(db, { text: 'SELECT current_setting($1) AS mode', values: ['plan_cache_mode'] }, { genericPlan })).rows[0]!.mode;
    expect(await mode(false)).toBe('auto');
    expect(await mode(true)).toBe('force_generic_plan');
    const sessions = async () =>
      (
        await pgPoolOf(opened[0] ?? open()).query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%current_setting($1)%'`,
        )
      ).rows[0]!.n;
    expect(await sessions()).toBe(2);
    await closeDb(db);
    // both pools' connections are gone
    await waitFor(async () => (await sessions()) === 0, 5_000, 'both pools to close their connections');
  });

  it('outlives idle connections that Postgres ends (a restart, a terminated backend), and connects again', async () => {
    const db = createDb({ databaseUrl: url, poolSize: 2 });
    opened.push(db);
    const own = async (genericPlan: boolean) => (await queryPrepared<{ pid: number }>(db, { text: 'SELECT pg_backend_pid() AS pid', values: [] }, { genericPlan })).rows[0]!.pid;
    // an idle connection in each pool, Prisma's listener gone from the first (as between $disconnect and the pool's end)
    const pids = [await own(false), await own(true)];
    await db.$disconnect();
    const errors: unknown[] = [];
    const onUncaught = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await pgPoolOf(opened[0] ?? open()).query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      // Each pool gets a new connection. A statement sent before its pool has read the end of the old one fails
      // (as any statement on a connection that ends does), and leaves that connection behind.
      const ownAgain = async (genericPlan: boolean) => {
        for (const deadline = Date.now() + 5_000; ; ) {
          try {
            return await own(genericPlan);
          } catch (error) {
            if (Date.now() > deadline || !/terminating connection/.test(String(error))) throw error;
          }
        }
      };
      expect(await ownAgain(true)).not.toBe(pids[1]);
      expect(await ownAgain(false)).not.toBe(pids[0]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(errors).toEqual([]);
  });

  it('queryRows runs through pg on the client and inside a transaction on its connection, with the same rows', async () => {
    const db = open();
    const statement = Prisma.sql`SELECT ${'a'}::text AS s, ${2}::int AS n, '2026-01-02 03:04:05.678'::timestamp AS at, '{"k":[1]}'::jsonb AS j`;
    const outside = await queryRows(db, statement);
    const inside = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL application_name = 'in-transaction'`);
      return [await queryRows(tx, statement), await queryRows<{ name: string }>(tx, Prisma.sql`SELECT current_setting('application_name') AS name`)] as const;
    });
    expect(outside).toEqual([{ s: 'a', n: 2, at: new Date('2026-01-02T03:04:05.678Z'), j: { k: [1] } }]);
    expect(inside[0]).toEqual(outside);
    // the transaction's own connection ran it
    expect(inside[1]).toEqual([{ name: 'in-transaction' }]);
  });

  it('reads a timestamp through queryPrepared as UTC, as Prisma does, whatever the process time zone', () => {
    // in a process of its own: the time zone is read at start (a test's process.env is a copy)
    const script = `
      const { closeDb, createDb, queryPrepared } = require(${JSON.stringify(path.resolve(__dirname, '../src/index.ts'))});
      (async () => {
        const db = createDb({ databaseUrl: process.env.DATABASE_URL, poolSize: 1 });
        const text = '2026-01-02 03:04:05.678';
        const { rows } = await queryPrepared(db, { text: 'SELECT $1::timestamp AS at', values: [text] });
        const [viaPrisma] = await db.$queryRawUnsafe('SELECT $1::timestamp AS at', text);
        console.log(JSON.stringify([rows[0].at, viaPrisma.at]));
        await closeDb(db);
      })();`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, DATABASE_URL: url, TZ: 'America/New_York' },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(['2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05.678Z']);
  });
});
