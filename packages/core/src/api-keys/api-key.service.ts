import type { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, ListQuery, RotateApiKeyBody } from '@tidings/contracts';
import type { ApiKey as ApiKeyRow, Db } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { generateKey, hashKey, keyPrefix, type KeyMode } from './key-secret.ts';

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
export async function insertApiKey(
  db: Pick<Db, 'apiKey'>,
  orgId: string,
  input: { name: string; permission: 'full' | 'sending'; mode: KeyMode },
): Promise<ApiKeyWithSecret> {
  const key = generateKey(input.mode);
  const row = await db.apiKey.create({
    data: { id: newId('key'), orgId, name: input.name, permission: input.permission, mode: input.mode, prefix: keyPrefix(key), keyHash: hashKey(key) },
  });
  return { ...toApiKey(row), key };
}

/** apiKey.create. A `test` key may only create `test` keys, so sandbox access never yields live access. */
export async function createApiKey({ db }: Deps, orgId: string, callerMode: KeyMode, input: CreateApiKeyBody): Promise<ApiKeyWithSecret> {
  const mode = input.mode ?? callerMode;
  if (callerMode === 'test' && mode === 'live') throw new AppError('FORBIDDEN', 'A test key cannot create live keys');
  return insertApiKey(db, orgId, { name: input.name, permission: input.permission, mode });
}

/** apiKey.list: the organization's keys that are not deleted, newest first. */
export async function listApiKeys({ db, now }: Deps, orgId: string, query: ListQuery): Promise<Page<ApiKey>> {
  return paginate(
    query,
    ({ where, ...page }) => db.apiKey.findMany({ where: { orgId, deletedAt: null, ...where }, ...page }),
    (row) => toApiKey(row, now()),
  );
}

async function findLiveKey(db: Db, orgId: string, id: string): Promise<ApiKeyRow> {
  return foundOr404(await db.apiKey.findFirst({ where: { id, orgId, deletedAt: null } }), 'API key');
}

/** apiKey.rotate: a new secret; the previous one keeps working for 24 h unless `immediately`. */
export async function rotateApiKey({ db, now }: Deps, orgId: string, id: string, input: RotateApiKeyBody): Promise<ApiKeyWithSecret> {
  const current = await findLiveKey(db, orgId, id);
  const key = generateKey(current.mode);
  const keepOld = !input.immediately;
  const row = await db.apiKey.update({
    where: { id: current.id },
    data: {
      keyHash: hashKey(key),
      prefix: keyPrefix(key),
      // Only the secret just replaced overlaps; one from an earlier rotation stops now.
      previousKeyHash: keepOld ? current.keyHash : null,
      previousKeyExpiresAt: keepOld ? new Date(now().getTime() + ROTATION_OVERLAP_MS) : null,
    },
  });
  return { ...toApiKey(row, now()), key };
}

/** apiKey.disable / apiKey.enable. */
export async function setApiKeyEnabled({ db, now }: Deps, orgId: string, id: string, enabled: boolean): Promise<ApiKey> {
  const current = await findLiveKey(db, orgId, id);
  const row = await db.apiKey.update({ where: { id: current.id }, data: { disabledAt: enabled ? null : now() } });
  return toApiKey(row, now());
}

/** apiKey.delete: final. The hashes are cleared so the secrets can never match again. */
export async function deleteApiKey({ db, now }: Deps, orgId: string, id: string): Promise<void> {
  const current = await findLiveKey(db, orgId, id);
  await db.apiKey.update({
    where: { id: current.id },
    data: { deletedAt: now(), disabledAt: now(), keyHash: `deleted:${current.id}`, previousKeyHash: null, previousKeyExpiresAt: null },
  });
}

/**
 * One key of the organization (the dashboard's confirmation pages); NOT_FOUND for a deleted or foreign one.
 * @example const apiKey = await getApiKey(deps, orgId, 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5V');
 */
export async function getApiKey({ db, now }: Deps, orgId: string, id: string): Promise<ApiKey> {
  return toApiKey(await findLiveKey(db, orgId, id), now());
}
