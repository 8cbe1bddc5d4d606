import type { Deps } from '../deps.ts';
import { deleteUnneededAttachmentContents } from './attachment-content.store.ts';

/** How long a sandbox message's attachments stay downloadable from the sandbox inbox. */
export const SANDBOX_ATTACHMENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Bytes younger than this are never swept: a send stores them before it writes the messages that name them. */
const UNCLAIMED_GRACE_MS = 60 * 60 * 1000;

/**
 * The periodic sweep: removes stored bytes that no message still needs: none of the messages naming them can be sent
 * any more (a job that ended without removing them, a crash), a sandbox message's past the retention, and bytes no
 * message names (a send that died between storing them and writing its messages). Returns how many were removed.
 * @example await removeUnneededAttachments(deps)
 */
export async function removeUnneededAttachments({ db, now }: Pick<Deps, 'db' | 'now'>): Promise<number> {
  const at = now().getTime();
  const unclaimedBefore = new Date(at - UNCLAIMED_GRACE_MS);
  const sandboxSince = new Date(at - SANDBOX_ATTACHMENT_RETENTION_MS);
  return deleteUnneededAttachmentContents(db, unclaimedBefore, sandboxSince);
}
