import type { Deps } from '../deps.ts';
import { findActiveApiKeyByHash, setApiKeyLastUsedAt } from './api-key.store.ts';
import { hashKey, modeOfKey, sameHash, type KeyMode } from './key-secret.ts';

export type Principal = {
  keyId: string;
  orgId: string;
  permission: 'full' | 'sending';
  mode: KeyMode;
  isOrgSuspended: boolean;
  /** False for an organization made for testing (`--test`) until an operator allows live keys. */
  isLiveAllowed: boolean;
};

type CacheEntry = { principal: Principal | null; expiresAt: number };

/** How often `lastUsedAt` is written for one key: often enough to be useful, rarely enough to stay off the send path. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Returns a function from a presented key to its principal (null for unknown, disabled, deleted or rotated-out keys).
 * Lookups are cached in process for `config.apiKeyCacheTtlMs` (at most 5 s) to spare a database round trip per
 * request. A key change announced through `deps.keyChanges` (disable, delete, rotate, enable, from any replica) drops
 * the cached entries at once; the TTL only bounds how long a missed announcement (Redis down) can matter.
 * @example const authenticate = createAuthenticator(deps); const principal = await authenticate(bearer);
 */
export function createAuthenticator(deps: Deps) {
  const cache = new Map<string, CacheEntry>();
  const lastUsedWrites = new Map<string, number>();
  // Counts announcements, so a lookup that raced one (read the row before the change) is not cached.
  let changesSeen = 0;
  deps.keyChanges.subscribe((keyId) => {
    changesSeen++;
    // the entries of that key, and every negative one: an enabled key must not stay refused
    for (const [hash, entry] of cache) if (!entry.principal || entry.principal.keyId === keyId) cache.delete(hash);
  });

  async function lookup(keyHash: string): Promise<Principal | null> {
    const now = deps.now();
    const row = await findActiveApiKeyByHash(deps.db, keyHash, now);
    const storedHash = row && (row.keyHash === keyHash ? row.keyHash : row.previousKeyHash);
    if (!row || !storedHash || !sameHash(storedHash, keyHash)) return null;
    return {
      keyId: row.id,
      orgId: row.orgId,
      permission: row.permission,
      mode: row.mode,
      isOrgSuspended: row.organization.suspendedAt !== null,
      isLiveAllowed: row.organization.liveKeysAllowed,
    };
  }

  function recordUse(keyId: string) {
    const nowMs = deps.now().getTime();
    if (nowMs - (lastUsedWrites.get(keyId) ?? 0) < LAST_USED_WRITE_INTERVAL_MS) return;
    lastUsedWrites.set(keyId, nowMs);
    setApiKeyLastUsedAt(deps.db, keyId, new Date(nowMs)).catch((error: unknown) => deps.logger.warn({ err: error, keyId }, 'could not record lastUsedAt'));
  }

  return async function authenticate(presentedKey: string): Promise<Principal | null> {
    if (!modeOfKey(presentedKey)) return null;
    const keyHash = hashKey(presentedKey);
    const nowMs = deps.now().getTime();
    let entry = cache.get(keyHash);
    if (!entry || entry.expiresAt <= nowMs) {
      const changesBefore = changesSeen;
      entry = { principal: await lookup(keyHash), expiresAt: nowMs + deps.config.apiKeyCacheTtlMs };
      if (cache.size > 10_000) cache.clear(); // bounded: a flood of random keys cannot grow it without end
      if (changesSeen === changesBefore) cache.set(keyHash, entry);
    }
    if (entry.principal) recordUse(entry.principal.keyId);
    return entry.principal;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
