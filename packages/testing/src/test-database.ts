import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

const repoRoot = path.resolve(__dirname, '../../..');
const checkout = createHash('sha256').update(repoRoot).digest('hex').slice(0, 8);

/**
 * The database of this checkout's suite `TEST_SUITE` (set by the global setup from the jest config's folder: `apps_api`,
 * `packages_core`, ...) and jest worker `JEST_WORKER_ID`: its own per checkout, suite and worker, so two clones on one
 * machine, two suites running at once and two files of one suite running at once never share one. Same server as
 * DATABASE_URL (or the local default).
 */
export function testDatabaseUrl(env: Record<string, string | undefined> = process.env): { adminUrl: string; url: string; name: string } {
  const name = [`tidings_test_${checkout}`, env.TEST_SUITE, env.JEST_WORKER_ID && `w${env.JEST_WORKER_ID}`].filter(Boolean).join('_');
  const base = new URL(env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/tidings');
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { adminUrl: admin.toString(), url: url.toString(), name };
}

/**
 * The suite name of a jest config's folder: its path from the repository root, `_` for what Postgres names do not take.
 * @example testSuiteName('/repo/apps/send-worker') // 'apps_send_worker'
 */
export function testSuiteName(rootDir: string): string {
  const relative = path.relative(repoRoot, rootDir) || 'root';
  return relative.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/**
 * Drops database `name` (closing its connections) and creates it, on the server of `adminUrl`: empty, or a copy of
 * database `template`.
 */
export async function recreateDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  await withAdmin(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  });
}

/** The names of this checkout's migrated templates begin with this; it also names the lock that guards them. */
export const TEMPLATE_PREFIX = `tidings_test_${checkout}_template_`;

/**
 * Drops database `name` and makes it a copy of this checkout's migrated template (migratedTemplate). The copy holds
 * the templates' lock shared, so no suite drops the template while it is copied (when the day or the migrations
 * changed since): one dropped between finding it and copying it is looked up, or made, again.
 * @example await copyMigratedTemplate(adminUrl, 'tidings_test_1a2b3c4d_apps_api_w1');
 */
export async function copyMigratedTemplate(adminUrl: string, name: string): Promise<void> {
  for (;;) {
    const template = await migratedTemplate(adminUrl);
    const copied = await withAdmin(adminUrl, async (admin) => {
      await admin.query('SELECT pg_advisory_lock_shared(hashtext($1))', [TEMPLATE_PREFIX]);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (!rowCount) return false;
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return true;
    });
    if (copied) return;
  }
}

/**
 * The name of an empty database of this checkout migrated by `tidings migrate` to the migrations in prisma/migrations
 * (named from their contents and today's date, since migrations make the partitions of the months around it), made
 * once and then copied by `CREATE DATABASE ... TEMPLATE`, which takes a fraction of a second where migrating takes
 * seconds. Suites starting at once wait for the one that makes it.
 */
export async function migratedTemplate(adminUrl: string): Promise<string> {
  const migrations = path.join(repoRoot, 'prisma/migrations');
  const digest = createHash('sha256').update(new Date().toISOString().slice(0, 10));
  for (const entry of (readdirSync(migrations, { recursive: true }) as string[]).sort()) {
    if (entry.endsWith('.sql')) digest.update(entry).update(readFileSync(path.join(migrations, entry)));
  }
  const prefix = TEMPLATE_PREFIX;
  const name = `${prefix}${digest.digest('hex').slice(0, 8)}`;
  await withAdmin(adminUrl, async (admin) => {
    // alone: no copy is being made (copyMigratedTemplate's shared lock) of a template this may drop
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [prefix]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    // the copies of earlier migrations go; the template gets its name only once migrated, so a failed run leaves none
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE "${datname}" WITH (FORCE)`);
    const building = `${name}_new`;
    await admin.query(`CREATE DATABASE "${building}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const cli = path.join(repoRoot, 'packages/cli/bin/tidings.js');
    execFileSync(process.execPath, [cli, 'migrate'], { env: { ...process.env, DATABASE_URL: url.toString() }, stdio: 'pipe' });
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
  });
  return name;
}

async function withAdmin<T>(adminUrl: string, work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * A database of its own beside the test database (`<test database>_<suffix>`), dropped and created empty, for a test
 * that migrates by itself or removes whatever is old; returns its URL.
 * @example const url = await recreateScratchDatabase('upgrade'); await migrate(url);
 */
export async function recreateScratchDatabase(suffix: string): Promise<string> {
  const { adminUrl, url, name: base } = testDatabaseUrl();
  const name = `${base}_${suffix}`;
  await recreateDatabase(adminUrl, name);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return scratch.toString();
}
