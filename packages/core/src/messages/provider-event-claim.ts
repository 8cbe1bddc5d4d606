import { Prisma } from '@tidings/db';

/**
 * The statement that claims a provider's event: one row back the first time, none for a replay. A concurrent twin
 * waits on the unique key until the first commits (then none) or rolls back (then it claims it), so run it in the
 * transaction (or statement) that carries out the event's effect and the effect happens once.
 * @example await db.$queryRaw`WITH claimed AS (${claimProviderEventSql('resend', svixId)}) ...`;
 */
export const claimProviderEventSql = (provider: string, eventId: string): Prisma.Sql =>
  Prisma.sql`INSERT INTO "ProviderEvent" ("provider", "eventId") VALUES (${provider}, ${eventId}) ON CONFLICT DO NOTHING RETURNING 1`;

/**
 * Claims a provider's event in `tx`, the transaction that carries out its effect: true the first time, false for a
 * replay (see claimProviderEventSql).
 * @example if (eventId && !(await claimProviderEvent(tx, 'resend', eventId))) return null;
 */
export async function claimProviderEvent(tx: Prisma.TransactionClient, provider: string, eventId: string): Promise<boolean> {
  return (await tx.$queryRaw<unknown[]>(claimProviderEventSql(provider, eventId))).length > 0;
}
