import { createHash } from 'node:crypto';
import path from 'node:path';

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
