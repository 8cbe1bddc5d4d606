import type { Message } from '@tidings/contracts';
import { buffer } from 'node:stream/consumers';
import { attachmentStore } from '../attachments/attachment-store.ts';
import type { Deps } from '../deps.ts';

/** Inline images larger than this are not shown in the dashboard (a page holds them as data URIs). */
export const INLINE_IMAGE_PREVIEW_BYTES = 2 * 1024 * 1024;

/**
 * An email's html with each `cid:` reference to an inline image replaced by a `data:` URI of its bytes, for a view
 * that must not load anything (the dashboard's sandboxed frame allows `data:` images only). Images whose bytes are no
 * longer kept, or that are too large, keep their `cid:` reference.
 * @example const html = await withInlineImages(deps, orgId, message); // '<img src="data:image/png;base64,...">'
 */
export async function withInlineImages(deps: Pick<Deps, 'db' | 'config'>, orgId: string, message: Pick<Message, 'html' | 'attachments'>): Promise<string | null> {
  if (!message.html) return message.html;
  const inline = message.attachments.filter((a) => a.contentId && a.contentType.startsWith('image/') && a.size !== null && a.size <= INLINE_IMAGE_PREVIEW_BYTES);
  if (inline.length === 0) return message.html;
  const store = attachmentStore(deps);
  const uris = new Map<string, string>();
  for (const a of inline) {
    const content = await store.open(orgId, a.id);
    if (content) uris.set(a.contentId!, `data:${a.contentType.split(';')[0]};base64,${(await buffer(content)).toString('base64')}`);
  }
  return message.html.replace(/cid:([^"'\s)>]+)/g, (reference, id: string) => uris.get(id) ?? reference);
}
