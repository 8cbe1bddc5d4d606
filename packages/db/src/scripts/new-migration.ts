// npm run db:migration -- <name>: writes prisma/migrations/<timestamp>_<name>/ with the SQL from the last
// migration's saved schema to the current one, and moves the saved schema there for the next diff (only the last
// migration keeps one: the offline migrator cannot derive it from the migrations, see migrate.ts).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { diffSchemaSinceLastMigration, listMigrations, prismaDir } from '../migrate.ts';

async function main() {
  const name = process.argv[2];
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('usage: npm run db:migration -- <name_in_snake_case>');
    process.exit(2);
  }
  const { sql, current } = await diffSchemaSinceLastMigration();
  if (!sql.trim()) {
    console.log('schema.prisma matches the last migration: nothing to write');
    return;
  }
  const previous = (await listMigrations()).at(-1);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(prismaDir, 'migrations', `${stamp}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'migration.sql'), sql);
  await writeFile(path.join(dir, 'schema.prisma'), current);
  if (previous) await rm(path.join(prismaDir, 'migrations', previous, 'schema.prisma'), { force: true });
  console.log(`wrote ${path.relative(process.cwd(), dir)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
