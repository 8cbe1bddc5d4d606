import { Client } from 'pg';
import { diffSchemaSinceLastMigration, listMigrations, migrate } from '../src/index.ts';
import { testDatabaseUrl } from '@tidings/testing';

describe('migrations', () => {
  const { adminUrl, url } = testDatabaseUrl();
  const scratch = new URL(url);
  scratch.pathname = `${scratch.pathname}_scratch`;
  const name = scratch.pathname.slice(1);

  beforeAll(async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
  });

  it('applies every migration to an empty database, and a second run is a no-op', async () => {
    const first = await migrate(scratch.toString());
    expect(first.applied).toEqual(await listMigrations());
    const second = await migrate(scratch.toString());
    expect(second.applied).toEqual([]);

    const client = new Client({ connectionString: scratch.toString() });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`);
    await client.end();
    expect(rows[0].n).toBe(first.applied.length);
  });

  it('schema.prisma has no change that a migration does not carry', async () => {
    const { sql } = await diffSchemaSinceLastMigration();
    expect(sql).toBe('');
  });
});
