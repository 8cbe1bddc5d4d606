import type { PreviewTemplateBody, TemplatePreview } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { previewTemplate } from '../templates/template.service.ts';
import { findContact } from '../contacts/contact.store.ts';
import { findBroadcastForPreview } from './broadcast.store.ts';
import { broadcastVariables } from './broadcast-render.ts';

/**
 * What one contact of the organization would get from a broadcast: its template (the version it names, else the
 * latest) rendered with the variables the fan-out gives that contact. Sends nothing; another organization's
 * broadcast or contact is NOT_FOUND.
 * @example await previewBroadcast(deps, orgId, 'brd_...', 'con_...') // { subject: 'Hi Ada', html: '...', ... }
 */
export async function previewBroadcast(deps: Pick<Deps, 'db' | 'renderer' | 'config'>, orgId: string, id: string, contactId: string): Promise<TemplatePreview> {
  const [broadcast, contact] = await Promise.all([findBroadcastForPreview(deps.db, orgId, id), findContact(deps.db, orgId, contactId)]);
  const found = foundOr404(broadcast, 'Broadcast');
  const variables = broadcastVariables(deps.config, found, foundOr404(contact, 'Contact'));
  return previewTemplate(deps, orgId, found.templateId, { variables: variables as PreviewTemplateBody['variables'], version: found.templateVersion ?? undefined });
}
