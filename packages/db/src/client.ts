import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.ts';

export type Db = PrismaClient;

/** At most this many distinct statements are prepared by name (per process; each connection prepares its own). */
const MAX_PREPARED_STATEMENTS = 200;

/**
 * Names statements so that each connection parses and plans one only once: for the send path, parse and plan were
 * two thirds of Postgres's time per statement. The cap bounds the server memory they hold, since some SQL is built
 * per request (segment criteria); statements past it run unnamed, as before. An empty name means unnamed to pg.
 */
function statementNamer(): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= MAX_PREPARED_STATEMENTS) return '';
    const name = `s${createHash('sha1').update(sql).digest('base64url')}`;
    names.set(sql, name);
    return name;
  };
}

/**
 * Creates a Prisma client over a pg pool. `preparedStatements: false` for a connection pooler that cannot keep
 * them (PgBouncer before 1.21 in transaction mode).
 * @example const db = createDb({ databaseUrl: config.databaseUrl, poolSize: 10 });
 */
export function createDb(options: { databaseUrl: string; poolSize?: number; preparedStatements?: boolean }): Db {
  const adapter = new PrismaPg(
    { connectionString: options.databaseUrl, max: options.poolSize ?? 10 },
    options.preparedStatements === false ? {} : { statementNameGenerator: statementNamer() },
  );
  return new PrismaClient({ adapter });
}
