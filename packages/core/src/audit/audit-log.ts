import type { AuditAction, AuditEvent, AuditListQuery } from '@tidings/contracts';
import { type AuditEvent as AuditEventRow, Prisma } from '@tidings/db';
import type { KeyMode } from '../api-keys/key-secret.ts';
import type { Deps } from '../deps.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';

/**
 * Who is making a change, and from where: an API key (its id and mode), a person in the dashboard (their user id),
 * or the `tidings` CLI on the server. `mode` is the mode of the change: a test key's are `test`, everything else
 * `live` (people and the CLI act for the whole organization).
 */
export type AuditActor = { type: 'user' | 'apiKey' | 'cli'; id: string | null; ip: string | null; mode: KeyMode };

/** The actor of the `tidings` command: no id (it runs as whoever can reach the database), no address. */
export const CLI_ACTOR: AuditActor = { type: 'cli', id: null, ip: null, mode: 'live' };

/**
 * Writes one audit row in `tx`, the transaction of the change itself, so a change that fails leaves none. Without an
 * actor (a worker's own changes: an endpoint disabled after failures, a STOP) nothing is written. Ids only: never
 * pass a secret as `targetId`.
 * @example await db.$transaction(async (tx) => { await tx.webhook.delete(...); await recordAudit(tx, deps.actor, { orgId, action: 'webhook.deleted', targetId: id }); });
 */
export async function recordAudit(
  tx: Pick<Prisma.TransactionClient, 'auditEvent'>,
  actor: AuditActor | undefined,
  change: { orgId: string; action: AuditAction; targetId: string | null },
): Promise<void> {
  if (!actor) return;
  await tx.auditEvent.create({
    data: { id: newId('aud'), orgId: change.orgId, action: change.action, targetId: change.targetId, actorType: actor.type, actorId: actor.id, ip: actor.ip, mode: actor.mode },
  });
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

/** The API's view of a row. */
export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    action: row.action as AuditAction,
    actor: { type: row.actorType, id: row.actorId },
    targetId: row.targetId,
    ip: row.ip,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * audit.list: the organization's audit events, newest first, filtered by action, actor and time. `onlyTestChanges`
 * (a test key in an organization with live data) limits it to the changes test keys made.
 * @example const page = await listAuditEvents(deps, orgId, { limit: 20, offset: 0, action: 'apiKey.created' }, { onlyTestChanges: false });
 */
export async function listAuditEvents({ db }: Pick<Deps, 'db'>, orgId: string, query: AuditListQuery, visibility: { onlyTestChanges: boolean }): Promise<Page<AuditEvent>> {
  const filters: Prisma.AuditEventWhereInput = {
    orgId,
    ...(visibility.onlyTestChanges ? { mode: 'test' as const } : {}),
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorId ? { actorId: query.actorId } : {}),
  };
  const since = query.since ? { createdAt: { gte: new Date(query.since) } } : undefined;
  return paginate(query, ({ where, ...page }) => db.auditEvent.findMany({ where: { AND: [filters, where, ...(since ? [since] : [])] }, ...page }), toAuditEvent);
}

/**
 * Runs `write` and its audit row in one transaction: the usual shape of a change of one thing. `targetId` may be
 * read from the result (an id the database made).
 * @example const row = await auditedChange(deps, { orgId, action: 'webhook.updated', targetId: id }, (tx) => tx.webhook.update(...));
 */
export async function auditedChange<T>(
  { db, actor }: Pick<Deps, 'db' | 'actor'>,
  change: { orgId: string; action: AuditAction; targetId: string | ((result: T) => string) },
  write: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return db.$transaction(async (tx) => {
    const result = await write(tx);
    const targetId = typeof change.targetId === 'function' ? change.targetId(result) : change.targetId;
    await recordAudit(tx, actor, { orgId: change.orgId, action: change.action, targetId });
    return result;
  });
}
