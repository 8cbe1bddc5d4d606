import { type Db, pgPoolOf } from '@tidings/db';

/** The pg pool the attachment bytes are written and read through. */
export type AttachmentContentPool = ReturnType<typeof pgPoolOf>;

/** pg itself, not Prisma: it sends each Buffer as a binary parameter, with no copy (see pgPoolOf). */
export function attachmentContentPool(db: Db): AttachmentContentPool {
  return pgPoolOf(db);
}

/** Stores every entry in one statement (all or nothing). */
export async function insertAttachmentContents(pool: AttachmentContentPool, entries: { key: string; orgId: string; bytes: Buffer }[]): Promise<void> {
  const values = entries.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`).join(', ');
  await pool.query(
    `INSERT INTO "AttachmentContent" ("key", "orgId", "bytes") VALUES ${values}`,
    entries.flatMap((e) => [e.key, e.orgId, e.bytes]),
  );
}

/** The size in bytes of what is stored under `key` in this organization, or null when nothing is. */
export async function findAttachmentContentSize(pool: AttachmentContentPool, orgId: string, key: string): Promise<number | null> {
  const { rows } = await pool.query<{ size: number }>('SELECT octet_length("bytes")::int AS "size" FROM "AttachmentContent" WHERE "key" = $1 AND "orgId" = $2', [key, orgId]);
  return rows[0] ? rows[0].size : null;
}

/** Up to `length` bytes stored under `key` from `offset` (0-based); undefined when the row is gone. */
export async function readAttachmentContentSlice(pool: AttachmentContentPool, key: string, offset: number, length: number): Promise<Buffer | undefined> {
  const slice = await pool.query<{ bytes: Buffer }>('SELECT substring("bytes" FROM $2::int FOR $3::int) AS "bytes" FROM "AttachmentContent" WHERE "key" = $1', [
    key,
    offset + 1,
    length,
  ]);
  return slice.rows[0]?.bytes;
}

export async function deleteAttachmentContents(pool: AttachmentContentPool, keys: string[]): Promise<void> {
  await pool.query('DELETE FROM "AttachmentContent" WHERE "key" = ANY ($1::text[])', [keys]);
}

/**
 * Deletes the stored bytes of one message's attachments if the message can no longer be sent (past `sending`) and
 * is not a sandbox message; returns how many it deleted.
 */
export function deleteFinishedMessageAttachmentContents(db: Db, messageId: string): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "AttachmentContent" ac USING "Message" m
    WHERE m."id" = ${messageId} AND ac."orgId" = m."orgId"
      AND ac."key" IN (SELECT a->>'id' FROM jsonb_array_elements(m."attachments") a)
      AND m."status" NOT IN ('scheduled', 'queued', 'sending') AND m."provider" <> 'sandbox'`;
}

/**
 * Deletes the stored bytes created before `unclaimedBefore` that no message can still send, nor a sandbox message
 * created after `sandboxSince` shows; returns how many it deleted.
 */
export function deleteUnneededAttachmentContents(db: Db, unclaimedBefore: Date, sandboxSince: Date): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "AttachmentContent" ac
    WHERE ac."createdAt" < ${unclaimedBefore}
      AND NOT EXISTS (
        SELECT 1 FROM "Message" m
        WHERE m."orgId" = ac."orgId" AND m."attachments" @> jsonb_build_array(jsonb_build_object('id', ac."key"))
          AND (m."status" IN ('scheduled', 'queued', 'sending') OR (m."provider" = 'sandbox' AND m."createdAt" > ${sandboxSince})))`;
}
