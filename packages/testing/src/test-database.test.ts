// The suites' databases are copies of one migrated template per checkout. A suite that makes a new template (a new
// day, new migrations) drops the old ones: never while another suite copies one, which would fail its start.
import { Client } from 'pg';
import { copyMigratedTemplate, migratedTemplate, TEMPLATE_PREFIX, testDatabaseUrl } from './test-database.ts';
import { waitFor } from './wait-for.ts';

const { adminUrl, name: base } = testDatabaseUrl();

/** An admin session holding the templates' lock, shared (a copy in progress) or alone (a template made or dropped). */
async function holdTemplatesLock(mode: 'shared' | 'alone') {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`SELECT ${mode === 'shared' ? 'pg_advisory_lock_shared' : 'pg_advisory_lock'}(hashtext($1))`, [TEMPLATE_PREFIX]);
  const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
  const blockedByIt = async () => {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
    return rows[0]!.n > 0;
  };
  return { blockedByIt, release: () => client.end() };
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

describe('the migrated template', () => {
  const copy = `${base}_copy`;
  afterAll(async () => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`);
    await client.end();
  });

  it('is copied only while no suite makes or drops a template', async () => {
    const maker = await holdTemplatesLock('alone');
    const copying = copyMigratedTemplate(adminUrl, copy);
    try {
      await waitFor(maker.blockedByIt, 10_000, 'the copy to wait for the lock');
    } finally {
      await maker.release();
    }
    await copying;
    expect(await databaseExists(copy)).toBe(true);
  });

  it('is neither made nor dropped while a copy is in progress', async () => {
    const copier = await holdTemplatesLock('shared');
    const finding = migratedTemplate(adminUrl);
    try {
      await waitFor(copier.blockedByIt, 10_000, 'the template check to wait for the copy');
    } finally {
      await copier.release();
    }
    expect(await databaseExists(await finding)).toBe(true);
  });
});
