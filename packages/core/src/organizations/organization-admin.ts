import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { auditedChange } from '../audit/audit-log.ts';
import { listUndeletedApiKeyIds } from '../api-keys/api-key.store.ts';
import { findOrganizationSuspendedAt, listOrganizationSummaries, type OrganizationSummaryRow, updateOrganizationSuspendedAt } from './organization.store.ts';

/** What a suspended organization's keys are told (403), by the API and in its reference. */
export const ORGANIZATION_SUSPENDED_MESSAGE =
  'This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it.';

/** An organization as the operator sees it (`tidings orgs list`). */
export type OrganizationSummary = {
  id: string;
  name: string;
  createdAt: string;
  /** When it was suspended (its keys get 403 and its queued messages are not sent), or null. */
  suspendedAt: string | null;
  liveKeysAllowed: boolean;
  members: number;
  /** Keys that are not deleted. */
  apiKeys: number;
};

const toSummary = (row: OrganizationSummaryRow): OrganizationSummary => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  suspendedAt: row.suspendedAt?.toISOString() ?? null,
  liveKeysAllowed: row.liveKeysAllowed,
  members: row._count.memberships,
  apiKeys: row._count.apiKeys,
});

/**
 * Every organization of the install, oldest first, with its state and counts (`tidings orgs list`).
 * @example const organizations = await listOrganizations(deps);
 */
export async function listOrganizations({ db }: Pick<Deps, 'db'>): Promise<OrganizationSummary[]> {
  const rows = await listOrganizationSummaries(db);
  return rows.map(toSummary);
}

/**
 * Suspends an organization or resumes it (`tidings orgs suspend|resume`). Suspended, its keys get 403 from the API
 * and the send-worker fails its queued messages instead of sending them. Every key of the organization is announced
 * as changed, so each API replica's key cache stops (or starts) accepting them at once. Suspending twice keeps the
 * first time.
 * @example await setOrganizationSuspended(deps, 'org_01JD8Z5Q9X4N7W2M3K6P0R1T5V', true);
 */
export async function setOrganizationSuspended(deps: Pick<Deps, 'db' | 'keyChanges' | 'now' | 'actor'>, orgId: string, suspended: boolean): Promise<OrganizationSummary> {
  const { db } = deps;
  const current = await findOrganizationSuspendedAt(db, orgId);
  if (!current) throw new AppError('NOT_FOUND', 'Organization not found');
  const suspendedAt = suspended ? (current.suspendedAt ?? deps.now()) : null;
  const row = await auditedChange(deps, { orgId, action: suspended ? 'organization.suspended' : 'organization.unsuspended', targetId: orgId }, (tx) =>
    updateOrganizationSuspendedAt(tx, orgId, suspendedAt),
  );
  const keys = await listUndeletedApiKeyIds(db, orgId);
  for (const key of keys) await deps.keyChanges.publish(key.id);
  return toSummary(row);
}
