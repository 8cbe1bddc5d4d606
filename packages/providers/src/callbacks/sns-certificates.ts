import { createPublicKey, type KeyObject } from 'node:crypto';

/** SNS signing certificates by URL, at most `maxEntries` of them, the least recently used going first. */
export type SnsCertificateCache = {
  /** The certificate's public key, fetched with `fetchPem` the first time (a failed fetch is not kept). */
  get(url: string, fetchPem: (url: string) => Promise<string>): Promise<KeyObject>;
  readonly size: number;
};

/**
 * SNS uses one certificate per region and rotation, so a few entries serve every genuine message; the bound keeps a
 * flood of distinct certificate URLs (each genuine-looking, each fetched) from growing memory without end.
 * @example const certificates = createSnsCertificateCache(50); const key = await certificates.get(url, fetchText);
 */
export function createSnsCertificateCache(maxEntries: number): SnsCertificateCache {
  // a Map iterates in insertion order: re-inserting on use keeps the least recently used first
  const entries = new Map<string, Promise<KeyObject>>();
  return {
    get(url, fetchPem) {
      let key = entries.get(url);
      if (key) entries.delete(url);
      else {
        key = fetchPem(url).then((pem) => createPublicKey(pem));
        key.catch(() => entries.get(url) === key && entries.delete(url)); // a failed fetch is tried again next time
      }
      entries.set(url, key);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return key;
    },
    get size() {
      return entries.size;
    },
  };
}
