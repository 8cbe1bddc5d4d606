import type { AuditAction, AuditEvent, AuditListQuery } from '@tidings/contracts';
import type { AuditEvent as AuditEventRow, Prisma } from '@tidings/db';
import type { Deps } from '../deps.ts';
import type { AuditActor } from './audit-actor.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { insertAuditEvent, listAuditEventsPage } from './audit-event.store.ts';

export type { AuditActor } from './audit-actor.ts';

/** The actor of the `tidings` command: no id (it runs as whoever can reach the database), no address. */
export const CLI_ACTOR: AuditActor = { type: 'cli', id: null, ip: null, mode: 'live' };

/**
 * Writes one audit row in `tx`, the transaction of the change itself, so a change that fails leaves none. Without an
 * actor (a worker's own changes: an endpoint disabled after failures, a STOP) nothing is written. Ids only: never
 * pass a secret as `targetId`.
 * @example await db.$transaction(async (tx) => { await setApiKeyDisabledAt(tx, id, now); await recordAudit(tx, deps.actor, { orgId, action: 'apiKey.disabled', targetId: id }); });
 */
export async function recordAudit(
  tx: Pick<Prisma.TransactionClient, 'auditEvent'>,
  actor: AuditActor | undefined,
  change: { orgId: string; action: AuditAction; targetId: string | null },
): Promise<void> {
  if (!actor) return;
  await insertAuditEvent(tx, {
    id: newId('aud'),
    orgId: change.orgId,
    action: change.action,
    targetId: change.targetId,
    actorType: actor.type,
    actorId: actor.id,
    ip: actor.ip,
    mode: actor.mode,
  });
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
export async function listAuditEvents({ reads }: Pick<Deps, 'reads'>, orgId: string, query: AuditListQuery, visibility: { onlyTestChanges: boolean }): Promise<Page<AuditEvent>> {
  return paginate(query, (page) => listAuditEventsPage(reads, orgId, { query, onlyTestChanges: visibility.onlyTestChanges }, page), toAuditEvent);
}

/**
 * Runs `write` and its audit row in one transaction: the usual shape of a change of one thing. `targetId` may be
 * read from the result (an id the database made).
 * @example const row = await auditedChange(deps, { orgId, action: 'webhook.updated', targetId: id }, (tx) => updateWebhookSettings(tx, id, data));
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
