import { Prisma } from './generated/client.ts';

/**
 * A model's columns, listed, for raw SQL: `SELECT ${columnsOf(Prisma.ContactScalarFieldEnum)} FROM "Contact"`. Not
 * `*`, because a prepared statement whose `*` gains a column in a migration fails in every process that prepared it
 * ("cached plan must not change result type") until restarted.
 */
export function columnsOf(fields: Record<string, string>): Prisma.Sql {
  return Prisma.raw(
    Object.values(fields)
      .map((column) => `"${column}"`)
      .join(', '),
  );
}
