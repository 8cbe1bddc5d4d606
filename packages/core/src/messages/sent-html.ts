import type { Message } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { withInlineImages } from './inline-images.ts';
import { findMessageInOrg } from './message-read.store.ts';
import { trackedHtml } from '../tracking/tracked-html.ts';

/**
 * An email's html as it was sent, for the dashboard's preview: with Tidings' open pixel and click redirects when the
 * message was tracked (the same transform the send applies, so a click in the preview is counted as the recipient's
 * would be), and its inline `cid:` images as `data:` URIs.
 * @example const html = await sentHtml(deps, orgId, message); // '<a href="https://api.example.com/c/...">'
 */
export async function sentHtml(deps: Pick<Deps, 'db' | 'config'>, orgId: string, message: Message): Promise<string | null> {
  if (!message.html || message.channelType !== 'email' || message.direction !== 'outbound') return withInlineImages(deps, orgId, message);
  const row = await findMessageInOrg(deps.db, orgId, message.id);
  const tracked = row && (row.trackOpens || row.trackClicks) ? trackedHtml(deps, row, message.html) : message.html;
  return withInlineImages(deps, orgId, { html: tracked, attachments: message.attachments });
}
