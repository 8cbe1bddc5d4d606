import type { ApiKey as ApiKeyRow, Db, Prisma } from '@tidings/db';
import type { KeyMode } from './key-secret.ts';

/** The keys a caller of `callerMode` may see and manage: a test key only test keys, anything else every key. */
const visibleTo = (callerMode: KeyMode) => (callerMode === 'test' ? { mode: 'test' as const } : {});

/** Takes a transaction client too (only its `apiKey`), so an organization and its first key are created together. */
export async function insertApiKeyRow(
  db: Pick<Db, 'apiKey'>,
  row: { id: string; orgId: string; name: string; permission: 'full' | 'sending'; mode: KeyMode; prefix: string; keyHash: string },
): Promise<ApiKeyRow> {
  return db.apiKey.create({
    data: { id: row.id, orgId: row.orgId, name: row.name, permission: row.permission, mode: row.mode, prefix: row.prefix, keyHash: row.keyHash },
  });
}

/** The organization's keys that are not deleted. */
export async function countUndeletedApiKeys(tx: Prisma.TransactionClient, orgId: string): Promise<number> {
  return tx.apiKey.count({ where: { orgId, deletedAt: null } });
}

/** The ids of the organization's keys that are not deleted: those a suspension or a resumption announces as changed. */
export function listUndeletedApiKeyIds(db: Db, orgId: string): Promise<{ id: string }[]> {
  return db.apiKey.findMany({ where: { orgId, deletedAt: null }, select: { id: true } });
}

/** One page of the organization's keys that are not deleted, those a caller of `callerMode` may see. */
export async function listApiKeysPage(
  db: Db,
  orgId: string,
  callerMode: KeyMode,
  { where, ...page }: { where: Prisma.ApiKeyWhereInput } & Pick<Prisma.ApiKeyFindManyArgs, 'orderBy' | 'take' | 'skip'>,
): Promise<ApiKeyRow[]> {
  return db.apiKey.findMany({ where: { orgId, deletedAt: null, ...visibleTo(callerMode), ...where }, ...page });
}

/** A key a caller of `callerMode` may manage; null for a deleted or foreign one, and for a live one to a test caller. */
export async function findManagedApiKey(db: Db, orgId: string, callerMode: KeyMode, id: string): Promise<ApiKeyRow | null> {
  return db.apiKey.findFirst({ where: { id, orgId, deletedAt: null, ...visibleTo(callerMode) } });
}

/** A new secret's hash and prefix; the replaced hash keeps matching until `previousKeyExpiresAt` (none: it stops now). */
export async function replaceApiKeyHash(
  tx: Prisma.TransactionClient,
  id: string,
  hashes: { keyHash: string; prefix: string; previousKeyHash: string | null; previousKeyExpiresAt: Date | null },
): Promise<ApiKeyRow> {
  return tx.apiKey.update({
    where: { id },
    data: {
      keyHash: hashes.keyHash,
      prefix: hashes.prefix,
      previousKeyHash: hashes.previousKeyHash,
      previousKeyExpiresAt: hashes.previousKeyExpiresAt,
    },
  });
}

/** Disables the key from `disabledAt`, or enables it (null). */
export async function setApiKeyDisabledAt(tx: Prisma.TransactionClient, id: string, disabledAt: Date | null): Promise<ApiKeyRow> {
  return tx.apiKey.update({ where: { id }, data: { disabledAt } });
}

/** Marks the key deleted and clears its hashes, so its secrets can never match again. */
export async function markApiKeyDeleted(tx: Prisma.TransactionClient, id: string, at: { deletedAt: Date; disabledAt: Date }): Promise<void> {
  await tx.apiKey.update({
    where: { id },
    data: { deletedAt: at.deletedAt, disabledAt: at.disabledAt, keyHash: `deleted:${id}`, previousKeyHash: null, previousKeyExpiresAt: null },
  });
}

/**
 * The key that `keyHash` opens (its current hash, or its previous one while the rotation's overlap runs), not
 * disabled or deleted, with what the request needs of its organization.
 */
export async function findActiveApiKeyByHash(db: Db, keyHash: string, now: Date) {
  return db.apiKey.findFirst({
    where: {
      deletedAt: null,
      disabledAt: null,
      OR: [{ keyHash }, { previousKeyHash: keyHash, previousKeyExpiresAt: { gt: now } }],
    },
    include: { organization: { select: { suspendedAt: true, liveKeysAllowed: true } } },
  });
}

export async function setApiKeyLastUsedAt(db: Db, id: string, lastUsedAt: Date): Promise<void> {
  await db.apiKey.update({ where: { id }, data: { lastUsedAt } });
}
