import { createHash } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';

/**
 * The database the tests of this checkout use: its own name per checkout, so two clones on one machine never
 * share one. Same server as DATABASE_URL (or the local default).
 */
export function testDatabaseUrl(env: Record<string, string | undefined> = process.env): { adminUrl: string; url: string; name: string } {
  const repoRoot = path.resolve(__dirname, '../../..');
  const name = `tidings_test_${createHash('sha256').update(repoRoot).digest('hex').slice(0, 8)}`;
  const base = new URL(env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/tidings');
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { adminUrl: admin.toString(), url: url.toString(), name };
}

/** Drops database `name` (closing its connections) and creates it empty, on the server of `adminUrl`. */
export async function recreateDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
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
