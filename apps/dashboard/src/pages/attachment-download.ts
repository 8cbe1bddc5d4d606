import { Readable } from 'node:stream';
import { AppError, attachmentStore, getMessage } from '@tidings/core';
import type { Context } from 'hono';
import type { DashEnv } from '../env.ts';
import { orgOf } from './page.ts';

/**
 * A route handler that downloads an attachment of `:id`, streamed from the attachment store (this organization's
 * only, while it is kept); with `sandboxOnly`, of a sandbox message only.
 * @example routes.get('/:id/attachments/:attachmentId', attachmentDownload({ sandboxOnly: true }));
 */
export function attachmentDownload({ sandboxOnly }: { sandboxOnly: boolean }) {
  return async (c: Context<DashEnv>) => {
    const message = await getMessage(c.var.deps, orgOf(c), c.req.param('id')!);
    const allowed = !sandboxOnly || message.provider === 'sandbox';
    const attachment = allowed ? message.attachments.find((a) => a.id === c.req.param('attachmentId')) : undefined;
    const content = attachment ? await attachmentStore(c.var.deps).open(orgOf(c), attachment.id) : null;
    if (!attachment || !content) throw new AppError('NOT_FOUND', 'Attachment not found');
    return new Response(Readable.toWeb(content) as ReadableStream, {
      headers: {
        // always a download, never rendered in the dashboard's origin (an HTML or SVG file could carry script)
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(attachment.filename)}`,
        'x-content-type-options': 'nosniff',
      },
    });
  };
}
