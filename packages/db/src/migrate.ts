import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { Client, Pool } from 'pg';

/** The repository's prisma folder: schema.prisma and migrations/. */
export const prismaDir = path.resolve(__dirname, '../../../prisma');
const migrationsDir = path.join(prismaDir, 'migrations');
const noFilters = { externalTables: [], externalEnums: [] };

type SchemaEngine = {
  applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
  diff(input: unknown): Promise<{ stdout: string }>;
  free(): void | Promise<void>;
};

// Prisma's schema engine compiled to WebAssembly: migrations without downloading a native engine.
type SchemaEngineModule = {
  SchemaEngine: { new: (options: unknown, log: () => void, adapter: unknown) => Promise<SchemaEngine> };
};
let engineModule: Promise<SchemaEngineModule> | undefined;

// Instantiated once per process: the bindings keep views of the wasm memory, so a second instance breaks them.
async function instantiateSchemaEngine(): Promise<SchemaEngineModule> {
  // The engine reports a Rust panic through this global before it throws.
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
  g.PRISMA_WASM_PANIC_REGISTRY ??= { set_message: (message) => console.error(`schema engine panic: ${message}`) };
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bg = require(bgPath);
  const wasmBytes = await readFile(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(wasmBytes, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  return bg;
}

// The engine needs an adapter even for a diff between two files (a diff connects but reads nothing).
async function loadSchemaEngine(adapterUrl = 'postgresql://postgres@127.0.0.1:5432/postgres'): Promise<SchemaEngine> {
  engineModule ??= instantiateSchemaEngine();
  const { SchemaEngine } = await engineModule;
  const datamodel = await readFile(path.join(prismaDir, 'schema.prisma'), 'utf8');
  const pool = new Pool({ connectionString: adapterUrl, max: 2 });
  const engine = await SchemaEngine.new({ datamodels: [['schema.prisma', datamodel]] }, () => {}, bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool)));
  return {
    applyMigrations: (input) => engine.applyMigrations(input),
    diff: (input) => engine.diff(input),
    async free() {
      engine.free();
      await pool.end();
    },
  };
}

/** Creates the database named in the URL when the server does not have it yet, so a fresh install needs no createdb. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const probe = new Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error; // 3D000: database does not exist
  } finally {
    await probe.end().catch(() => {}); // a client that never connected has nothing to end
  }
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const admin = new Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/** Lists the migration folders in the order they apply (their names start with a timestamp). */
export async function listMigrations(): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * Whether the database records each of `names` as applied (finished, not rolled back) and no migration as failed:
 * then the schema engine, whose WebAssembly costs most of a second of CPU to load, would apply nothing. Anything else
 * (no history table yet, a migration missing or failed) is left to the engine, which applies or says what is wrong.
 */
async function allRecorded(databaseUrl: string, names: string[]): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string; finished_at: Date | null }>(
      `SELECT migration_name, finished_at FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
    );
    if (rows.some((row) => row.finished_at === null)) return false;
    const recorded = new Set(rows.map((row) => row.migration_name));
    return names.every((name) => recorded.has(name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // 42P01: no _prisma_migrations yet
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * Applies the migrations under prisma/migrations that the database has not seen yet; a second run applies nothing.
 * Works offline: the schema engine is WebAssembly. `through` stops at that migration (a test of an upgrade).
 * @example const { applied } = await migrate(config.databaseUrl);
 */
export async function migrate(databaseUrl: string, options: { through?: string } = {}): Promise<{ applied: string[] }> {
  await ensureDatabase(databaseUrl);
  const names = (await listMigrations()).filter((name) => !options.through || name <= options.through);
  // the common case, every start of every process: nothing to apply, answered without the engine
  if (await allRecorded(databaseUrl, names)) return { applied: [] };
  const engine = await loadSchemaEngine(databaseUrl);
  try {
    const migrationDirectories = await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok', value: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
        },
      })),
    );
    const lockfile = await readFile(path.join(migrationsDir, 'migration_lock.toml'), 'utf8');
    const result = await engine.applyMigrations({
      filters: noFilters,
      migrationsList: {
        baseDir: migrationsDir,
        shadowDbInitScript: '',
        lockfile: { path: 'migration_lock.toml', content: lockfile },
        migrationDirectories,
      },
    });
    return { applied: result.appliedMigrationNames };
  } finally {
    await engine.free();
  }
}

/**
 * The SQL that turns the schema of the last migration (its saved copy, `schema.prisma` beside it) into the current
 * prisma/schema.prisma. Empty when nothing changed. No database needed.
 * Only the last migration keeps that copy. Deriving it instead (a diff from the migrations themselves, applied to a
 * shadow database) fails in the WebAssembly engine: it cannot read back the columns of type "char" Postgres itself
 * uses, so the copy stays, once.
 */
export async function diffSchemaSinceLastMigration(): Promise<{ sql: string; current: string }> {
  const engine = await loadSchemaEngine();
  try {
    const current = await readFile(path.join(prismaDir, 'schema.prisma'), 'utf8');
    const last = (await listMigrations()).at(-1);
    const from = last
      ? { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: await readFile(path.join(migrationsDir, last, 'schema.prisma'), 'utf8') }] }
      : { tag: 'empty' };
    const { stdout } = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: current }] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return { sql: stdout.includes('This is an empty migration') ? '' : stdout, current };
  } finally {
    await engine.free();
  }
}
