import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { diffSchemaSinceLastMigration, listMigrations, migrate, prismaDir } from '../src/index.ts';
import { recreateScratchDatabase } from '@tidings/testing';

describe('migrations', () => {
  let scratch: string;

  beforeAll(async () => {
    scratch = await recreateScratchDatabase('scratch');
  });

  it('applies every migration to an empty database, and a second run is a no-op', async () => {
    const first = await migrate(scratch);
    expect(first.applied).toEqual(await listMigrations());
    const second = await migrate(scratch);
    expect(second.applied).toEqual([]);

    const client = new Client({ connectionString: scratch });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`);
    await client.end();
    expect(rows[0].n).toBe(first.applied.length);
  });

  it('only the last migration keeps a copy of the schema (the next diff starts from it)', async () => {
    const migrations = await listMigrations();
    const withCopy = migrations.filter((name) => existsSync(path.join(prismaDir, 'migrations', name, 'schema.prisma')));
    expect(withCopy).toEqual([migrations.at(-1)]);
  });

  it('leaves a failed migration to the engine, which refuses to go on, rather than calling the database up to date', async () => {
    const client = new Client({ connectionString: scratch });
    await client.connect();
    try {
      // what a migration that failed half-way leaves: a row neither finished nor rolled back
      await client.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ('failed-one', 'x', '99999999999999_failed', now(), 0)`,
      );
      await expect(migrate(scratch)).rejects.toThrow(/failed/i);
    } finally {
      await client.query(`DELETE FROM _prisma_migrations WHERE id = 'failed-one'`);
      await client.end();
    }
    expect((await migrate(scratch)).applied).toEqual([]);
  });

  it('schema.prisma has no change that a migration does not carry', async () => {
    const { sql } = await diffSchemaSinceLastMigration();
    expect(sql).toBe('');
  });
});
