import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.ts';

export type Db = PrismaClient;

/**
 * Creates a Prisma client over a pg pool.
 * @example const db = createDb({ databaseUrl: config.databaseUrl, poolSize: 10 });
 */
export function createDb(options: { databaseUrl: string; poolSize?: number }): Db {
  const adapter = new PrismaPg({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
  return new PrismaClient({ adapter });
}
