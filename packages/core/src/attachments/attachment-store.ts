import { Readable } from 'node:stream';
import type { Deps } from '../deps.ts';
import { attachmentContentPool, deleteAttachmentContents, findAttachmentContentSize, insertAttachmentContents, readAttachmentContentSlice } from './attachment-content.store.ts';

/** Bytes to keep under `key` (an attachment id), for one organization. */
export type StoredContent = { key: string; orgId: string; bytes: Buffer };

/**
 * Where attachment bytes live, outside the message row: written once when a send is accepted, read as a stream by
 * the send-worker (and the sandbox inbox). The database store is the default; an S3-compatible store implements the
 * same three calls.
 */
export interface AttachmentStore {
  /** Stores every entry (all or nothing for the database store). */
  put(entries: StoredContent[]): Promise<void>;
  /** The bytes under `key` as a stream, or null when there are none (in this organization). */
  open(orgId: string, key: string): Promise<Readable | null>;
  /** Removes what `put` stored (a send whose messages could not be written). */
  remove(keys: string[]): Promise<void>;
}

/** Bytes per read: a 40 MiB attachment is read in ten slices, never held whole by the reader. */
const SLICE_BYTES = 4 * 1024 * 1024;

/**
 * The default store: the `AttachmentContent` table (bytea). `open` reads the bytes back in slices of 4 MiB, so a
 * stream consumer (nodemailer, a download) holds one slice at a time.
 * @example const store = databaseAttachmentStore(deps); await store.put([{ key: 'att_1', orgId, bytes }]);
 */
export function databaseAttachmentStore({ db }: Pick<Deps, 'db'>): AttachmentStore {
  const pool = attachmentContentPool(db);
  return {
    async put(entries) {
      if (entries.length === 0) return;
      await insertAttachmentContents(pool, entries);
    },
    async open(orgId, key) {
      const size = await findAttachmentContentSize(pool, orgId, key);
      if (size === null) return null;
      let offset = 0;
      return new Readable({
        async read() {
          try {
            if (offset >= size) return void this.push(null);
            const bytes = await readAttachmentContentSlice(pool, key, offset, SLICE_BYTES);
            if (!bytes || bytes.length === 0) return void this.destroy(new Error(`attachment ${key} changed while it was read`));
            offset += bytes.length;
            this.push(bytes);
          } catch (error) {
            this.destroy(error as Error);
          }
        },
      });
    },
    async remove(keys) {
      if (keys.length > 0) await deleteAttachmentContents(pool, keys);
    },
  };
}

/**
 * The attachment store this installation uses (the database; the one place to choose another).
 * @example const stream = await attachmentStore(deps).open(orgId, 'att_1');
 */
export function attachmentStore(deps: Pick<Deps, 'db'>): AttachmentStore {
  return databaseAttachmentStore(deps);
}
