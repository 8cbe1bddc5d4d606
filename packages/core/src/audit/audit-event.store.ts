import type { AuditAction, AuditListQuery } from '@tidings/contracts';
import { type AuditEvent as AuditEventRow, Prisma, type Reads } from '@tidings/db';
import { newId } from '../ids.ts';
import type { AuditActor } from './audit-actor.ts';

/** Takes a transaction client's `auditEvent` only, so that any transaction (or client) can write the row. */
export async function insertAuditEvent(tx: Pick<Prisma.TransactionClient, 'auditEvent'>, row: Prisma.AuditEventUncheckedCreateInput): Promise<void> {
  await tx.auditEvent.create({ data: row });
}

/**
 * recordAudit as part of the change's own statement, for changes made in one SQL statement: a data-modifying CTE
 * that inserts the row when `when` holds (the change changed something). Without an actor, a CTE that does nothing.
 * @example Prisma.sql`WITH changed AS (UPDATE ... RETURNING "id"), audit AS (${auditInsertSql(deps.actor, change, Prisma.sql`EXISTS (SELECT 1 FROM changed)`)}) SELECT ...`
 */
export function auditInsertSql(actor: AuditActor | undefined, change: { orgId: string; action: AuditAction; targetId: string | null }, when: Prisma.Sql): Prisma.Sql {
  if (!actor) return Prisma.sql`SELECT 1`;
  return Prisma.sql`
    INSERT INTO "AuditEvent" ("id", "orgId", "action", "actorType", "actorId", "targetId", "ip", "mode", "createdAt")
    SELECT ${newId('aud')}, ${change.orgId}, ${change.action}, ${actor.type}::"AuditActorType", ${actor.id}::text, ${change.targetId}::text, ${actor.ip}::text,
      ${actor.mode}::"ApiKeyMode", now() AT TIME ZONE 'UTC'
    WHERE ${when}`;
}

/**
 * One page of the organization's audit events, filtered by action, actor and time; `onlyTestChanges` keeps the
 * changes test keys made. May be served by a replica.
 */
export async function listAuditEventsPage(
  reads: Reads,
  orgId: string,
  { query, onlyTestChanges }: { query: AuditListQuery; onlyTestChanges: boolean },
  { where, ...page }: { where: Prisma.AuditEventWhereInput } & Pick<Prisma.AuditEventFindManyArgs, 'orderBy' | 'take' | 'skip'>,
): Promise<AuditEventRow[]> {
  const filters: Prisma.AuditEventWhereInput = {
    orgId,
    ...(onlyTestChanges ? { mode: 'test' as const } : {}),
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorId ? { actorId: query.actorId } : {}),
  };
  const since = query.since ? { createdAt: { gte: new Date(query.since) } } : undefined;
  return reads.run((db) => db.auditEvent.findMany({ where: { AND: [filters, where, ...(since ? [since] : [])] }, ...page }));
}
