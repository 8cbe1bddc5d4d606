import type { Template } from '@tidings/contracts';
import type { Db, Template as TemplateRow, TemplateVersion as VersionRow } from '@tidings/db';
import { findOrgTemplate, findTemplateVersionRow } from './template.store.ts';

/**
 * The API's view of one version of a template.
 * @example toTemplate(templateRow, versionRow) // { id, name, channelType, ..., version: versionRow.version }
 */
export function toTemplate(template: TemplateRow, version: VersionRow): Template {
  return {
    id: template.id,
    name: template.name,
    channelType: template.channelType as Template['channelType'],
    subject: version.subject,
    html: version.html,
    text: version.text,
    body: version.body,
    replyTo: version.replyTo,
    variables: version.variables,
    version: version.version,
    deletedAt: template.deletedAt?.toISOString() ?? null,
    createdAt: template.createdAt.toISOString(),
    updatedAt: version.createdAt.toISOString(),
  };
}

export type FoundVersion = { found: true; template: TemplateRow; version: VersionRow } | { found: false; reason: 'template' | 'deleted' | 'version' };

/**
 * One version of the organization's template (the latest when `version` is absent), or why there is none: no such
 * template in this organization, soft-deleted (unless `includeDeleted`), or no such version. Callers choose the error:
 * 404 for the template operations, 400 for a send.
 * @example const found = await findTemplateVersion(db, orgId, id, { version: 2 }); if (!found.found) throw new AppError('NOT_FOUND', 'Template not found');
 */
export async function findTemplateVersion(
  db: Pick<Db, 'template' | 'templateVersion'>,
  orgId: string,
  id: string,
  options: { version?: number; includeDeleted?: boolean } = {},
): Promise<FoundVersion> {
  const template = await findOrgTemplate(db, orgId, id);
  if (!template) return { found: false, reason: 'template' };
  if (template.deletedAt && !options.includeDeleted) return { found: false, reason: 'deleted' };
  const version = await findTemplateVersionRow(db, template.id, options.version ?? template.version);
  return version ? { found: true, template, version } : { found: false, reason: 'version' };
}
