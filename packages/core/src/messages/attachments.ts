import { MESSAGE_LIMITS, type AttachmentMetadata, type SendMessageBody } from '@tidings/contracts';
import { checkWebhookUrl, UnsafeUrlError, type Resolver } from '@tidings/webhooks';
import type { StoredContent } from '../attachments/attachment-store.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';

/** An attachment as the message row keeps it: the public metadata, plus the `path` to fetch (never shown). */
export type StoredAttachment = AttachmentMetadata & { path?: string };

/** Common types by extension, for an attachment sent without `contentType`. */
const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  ics: 'text/calendar',
  json: 'application/json',
  xml: 'application/xml',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Decoded bytes of well-formed base64 (the schema checked the alphabet and length), without decoding it. */
export function base64DecodedSize(content: string): number {
  const padding = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  return (content.length / 4) * 3 - padding;
}

/** How the API checks a `path` when it accepts a send; the worker checks it again when it fetches. */
export type PathPolicy = { allowLoopback: boolean; resolve?: Resolver };

/** The policy of this installation: loopback only where webhooks may use it (development and tests). */
export function pathPolicyOf(config: Deps['config']): PathPolicy {
  return { allowLoopback: config.webhookAllowLoopback };
}

/**
 * Checks an email's attachments and prepares them for storing: at most 40 MiB decoded together, each `path` an
 * https URL whose host resolves to public addresses only (the send-worker's fetch uses the same rule). Returns the
 * metadata for the message row and the decoded bytes to store once; nothing is stored here. Every problem is
 * BAD_REQUEST naming `attachments.<index>.<field>`. `decoded`: the bytes of attachments the caller has decoded
 * already, by index (see SendOptions' `attachmentBytes`); those attachments' `content` is left empty.
 * @example const { attachments, contents } = await prepareAttachments(item, orgId, pathPolicyOf(deps.config));
 */
export async function prepareAttachments(
  item: SendMessageBody,
  orgId: string,
  policy: PathPolicy,
  decoded: readonly (Buffer | undefined)[] = [],
): Promise<{ attachments: StoredAttachment[]; contents: StoredContent[] }> {
  const given = item.attachments ?? [];
  if (given.length === 0) return { attachments: [], contents: [] };
  const total = given.reduce((sum, a, index) => sum + (decoded[index]?.length ?? (a.content === undefined ? 0 : base64DecodedSize(a.content))), 0);
  if (total > MESSAGE_LIMITS.attachmentBytes) {
    throw new AppError('BAD_REQUEST', `attachments: at most ${MESSAGE_LIMITS.attachmentBytes} bytes decoded per message (got ${total})`);
  }
  const contentIds = new Set<string>();
  given.forEach((a, index) => {
    if (a.contentId === undefined) return;
    if (contentIds.has(a.contentId)) throw new AppError('BAD_REQUEST', `attachments.${index}.contentId: ${a.contentId} is used by another attachment`);
    contentIds.add(a.contentId);
  });
  for (const [index, a] of given.entries()) {
    if (a.path === undefined) continue;
    try {
      await checkWebhookUrl(a.path, { ...policy, requireHttps: true });
    } catch (error) {
      if (!(error instanceof UnsafeUrlError)) throw error;
      throw new AppError('BAD_REQUEST', `attachments.${index}.path: ${error.message.replace(/^url: /, '')}`);
    }
  }
  // Only now, with everything checked, is anything decoded: once, into the Buffer that is stored.
  const contents: StoredContent[] = [];
  const attachments = given.map((a, index): StoredAttachment => {
    const id = newId('att');
    const extension = a.filename.includes('.') ? a.filename.slice(a.filename.lastIndexOf('.') + 1).toLowerCase() : '';
    const metadata = { id, filename: a.filename, contentType: a.contentType ?? TYPES[extension] ?? 'application/octet-stream', contentId: a.contentId ?? null };
    if (a.path !== undefined) return { ...metadata, size: null, path: a.path };
    const bytes = decoded[index] ?? Buffer.from(a.content!, 'base64');
    contents.push({ key: id, orgId, bytes });
    return { ...metadata, size: bytes.length };
  });
  return { attachments, contents };
}
