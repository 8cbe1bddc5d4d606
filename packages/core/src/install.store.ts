import type { Db } from '@tidings/db';

/** The cheapest statement: whether Postgres answers (the first of a new process opens its connection). */
export function pingDatabase(db: Db): Promise<unknown> {
  return db.$queryRaw`SELECT 1`;
}

/** The migrations the database has finished, by name; none before the first `migrate`. */
export async function listAppliedMigrations(db: Db): Promise<string[]> {
  const [table] = await db.$queryRaw<{ exists: boolean }[]>`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS "exists"`;
  if (!table?.exists) return [];
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT "migration_name" AS "name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`;
  return rows.map((row) => row.name);
}
