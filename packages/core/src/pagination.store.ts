import { Prisma } from '@tidings/db';

/**
 * `olderThan` in SQL over a row aliased `m`, for the keyset position (createdAt, id) of a decoded cursor.
 * @example olderThanPositionSql(after.createdAt, after.id) // m."createdAt" <= $1::timestamp AND (...)
 */
export function olderThanPositionSql(createdAt: Date, id: string): Prisma.Sql {
  const at = createdAt.toISOString();
  return Prisma.sql`m."createdAt" <= ${at}::timestamp AND (m."createdAt" < ${at}::timestamp OR (m."createdAt" = ${at}::timestamp AND m."id" < ${id}))`;
}
