import type { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, ListQuery, RotateApiKeyBody } from '@tidings/contracts';
import type { ApiKey as ApiKeyRow, Db } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { auditedChange, recordAudit } from '../audit/audit-log.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { allowOrganizationLiveKeys, findOrganization, findOrganizationLiveKeysAllowed, lockOrganizationForNewKey } from '../organizations/organization.store.ts';
import { countUndeletedApiKeys, findManagedApiKey, insertApiKeyRow, listApiKeysPage, markApiKeyDeleted, replaceApiKeyHash, setApiKeyDisabledAt } from './api-key.store.ts';
import { generateKey, hashKey, keyPrefix, type KeyMode } from './key-secret.ts';
import type { RequestContext } from '../request-context.ts';

/** How long the old secret keeps working after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The API's view of a key row: never a hash. */
export function toApiKey(row: ApiKeyRow, now = new Date()): ApiKey {
  const overlapRunning = row.previousKeyExpiresAt && row.previousKeyExpiresAt > now;
  return {
    id: row.id,
    name: row.name,
    permission: row.permission,
    mode: row.mode,
    prefix: row.prefix,
    state: row.disabledAt ? 'disabled' : 'enabled',
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    previousKeyExpiresAt: overlapRunning ? row.previousKeyExpiresAt!.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Inserts a key for the organization; the returned `key` is the only time the secret exists outside the caller.
 * Takes a transaction client too, so an organization and its first key are created together.
 */
export async function insertApiKey(db: Pick<Db, 'apiKey'>, orgId: string, input: { name: string; permission: 'full' | 'sending'; mode: KeyMode }): Promise<ApiKeyWithSecret> {
  const key = generateKey(input.mode);
  const row = await insertApiKeyRow(db, {
    id: newId('key'),
    orgId,
    name: input.name,
    permission: input.permission,
    mode: input.mode,
    prefix: keyPrefix(key),
    keyHash: hashKey(key),
  });
  return { ...toApiKey(row), key };
}

/**
 * apiKey.create. `callerMode` is the mode of the key making the call ('live' for the dashboard and the CLI, whose
 * people act for the whole organization). A `test` caller only creates `test` keys, so sandbox access never yields
 * live access; an organization made for testing gets no live key until an operator allows it; and an organization
 * has at most `config.apiKeysPerOrgMax` keys.
 */
export async function createApiKey({ db, config, actor }: Deps, orgId: string, callerMode: KeyMode, input: CreateApiKeyBody): Promise<ApiKeyWithSecret> {
  return db.$transaction(async (tx) => {
    const org = await lockOrganizationForNewKey(tx, orgId);
    if (!org) throw new AppError('NOT_FOUND', 'Organization not found');
    const mode = input.mode ?? (callerMode === 'live' && org.liveKeysAllowed ? 'live' : 'test');
    if (callerMode === 'test' && mode === 'live') throw new AppError('FORBIDDEN', 'A test key cannot create live keys');
    if (mode === 'live' && !org.liveKeysAllowed) {
      throw new AppError('FORBIDDEN', `This organization was created for testing: live keys are not allowed until an operator allows them with "tidings orgs allow-live ${orgId}"`);
    }
    const count = await countUndeletedApiKeys(tx, orgId);
    if (count >= config.apiKeysPerOrgMax) {
      throw new AppError('CONFLICT', `An organization may have at most ${config.apiKeysPerOrgMax} API keys; delete one it no longer uses first`);
    }
    const created = await insertApiKey(tx, orgId, { name: input.name, permission: input.permission, mode });
    await recordAudit(tx, actor, { orgId, action: 'apiKey.created', targetId: created.id });
    return created;
  });
}

/** apiKey.list: the organization's keys that are not deleted (for a test caller only test keys), newest first. */
export async function listApiKeys({ db, now }: Deps, orgId: string, callerMode: KeyMode, query: ListQuery): Promise<Page<ApiKey>> {
  return paginate(
    query,
    (page) => listApiKeysPage(db, orgId, callerMode, page),
    (row) => toApiKey(row, now()),
  );
}

/** A key the caller may manage; NOT_FOUND for a deleted or foreign one, and for a live one to a test caller. */
async function findManagedKey(db: Db, orgId: string, callerMode: KeyMode, id: string): Promise<ApiKeyRow> {
  return foundOr404(await findManagedApiKey(db, orgId, callerMode, id), 'API key');
}

/** apiKey.rotate: a new secret; the previous one keeps working for 24 h unless `immediately`. */
export async function rotateApiKey({ deps, orgId, mode: callerMode }: RequestContext, id: string, input: RotateApiKeyBody): Promise<ApiKeyWithSecret> {
  const { db, now } = deps;
  const current = await findManagedKey(db, orgId, callerMode, id);
  const key = generateKey(current.mode);
  const keepOld = !input.immediately;
  const row = await db.$transaction(async (tx) => {
    const updated = await replaceApiKeyHash(tx, current.id, {
      keyHash: hashKey(key),
      prefix: keyPrefix(key),
      // Only the secret just replaced overlaps; one from an earlier rotation stops now.
      previousKeyHash: keepOld ? current.keyHash : null,
      previousKeyExpiresAt: keepOld ? new Date(now().getTime() + ROTATION_OVERLAP_MS) : null,
    });
    await recordAudit(tx, deps.actor, { orgId, action: 'apiKey.rotated', targetId: current.id });
    return updated;
  });
  await deps.keyChanges.publish(row.id);
  return { ...toApiKey(row, now()), key };
}

/** apiKey.disable / apiKey.enable. */
export async function setApiKeyEnabled({ deps, orgId, mode: callerMode }: RequestContext, id: string, enabled: boolean): Promise<ApiKey> {
  const { db, now } = deps;
  const current = await findManagedKey(db, orgId, callerMode, id);
  const row = await db.$transaction(async (tx) => {
    const updated = await setApiKeyDisabledAt(tx, current.id, enabled ? null : now());
    await recordAudit(tx, deps.actor, { orgId, action: enabled ? 'apiKey.enabled' : 'apiKey.disabled', targetId: current.id });
    return updated;
  });
  await deps.keyChanges.publish(row.id);
  return toApiKey(row, now());
}

/** apiKey.delete: final. The hashes are cleared so the secrets can never match again. */
export async function deleteApiKey(deps: Deps, orgId: string, callerMode: KeyMode, id: string): Promise<void> {
  const { db, now } = deps;
  const current = await findManagedKey(db, orgId, callerMode, id);
  await db.$transaction(async (tx) => {
    await markApiKeyDeleted(tx, current.id, { deletedAt: now(), disabledAt: now() });
    await recordAudit(tx, deps.actor, { orgId, action: 'apiKey.deleted', targetId: current.id });
  });
  await deps.keyChanges.publish(current.id);
}

/**
 * One key of the organization (the dashboard's confirmation pages); NOT_FOUND for a deleted or foreign one.
 * @example const apiKey = await getApiKey(deps, orgId, 'live', 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5V');
 */
export async function getApiKey({ db, now }: Deps, orgId: string, callerMode: KeyMode, id: string): Promise<ApiKey> {
  return toApiKey(await findManagedKey(db, orgId, callerMode, id), now());
}

/** Whether the dashboard may offer live keys to this organization (false for one created with `--test`). */
export async function areLiveKeysAllowed({ db }: Pick<Deps, 'db'>, orgId: string): Promise<boolean> {
  const org = await findOrganizationLiveKeysAllowed(db, orgId);
  return org?.liveKeysAllowed ?? false;
}

/**
 * Lets an organization created for testing have live keys (`tidings orgs allow-live`).
 * @example await allowLiveKeys(deps, 'org_01JD8Z5Q9X4N7W2M3K6P0R1T5V');
 */
export async function allowLiveKeys(deps: Pick<Deps, 'db' | 'actor'>, orgId: string): Promise<{ id: string; name: string; liveKeysAllowed: boolean }> {
  const org = await findOrganization(deps.db, orgId);
  if (!org) throw new AppError('NOT_FOUND', 'Organization not found');
  const updated = await auditedChange(deps, { orgId, action: 'organization.liveKeysAllowed', targetId: orgId }, (tx) => allowOrganizationLiveKeys(tx, orgId));
  return { id: updated.id, name: updated.name, liveKeysAllowed: updated.liveKeysAllowed };
}
