import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { renderContent } from './template-engine.ts';
import { findTemplateVersion } from './template-versions.ts';

export type RenderForSendInput = {
  templateId: string;
  /** The latest version when absent. */
  templateVersion?: number;
  variables?: Record<string, unknown>;
  channelType: 'email' | 'sms';
};

/** The rendered parts of the template's channel (absent parts omitted) and the exact version used. */
export type RenderedForSend = { subject?: string; html?: string; text?: string; body?: string; templateId: string; templateVersion: number };

/**
 * Renders a template for message.send: the message stores what this returns, so a later template update never
 * changes a message already accepted. Everything wrong is BAD_REQUEST naming the field: a template that is missing
 * (or another organization's), deleted, of the other channel, a version that does not exist, or a variable missing.
 * @example
 * const rendered = await renderTemplateForSend(deps, orgId, { templateId: 'tpl_...', variables: { code: '123456' }, channelType: 'sms' });
 * // { body: 'Your code is 123456', templateId: 'tpl_...', templateVersion: 3 }
 */
export async function renderTemplateForSend({ db }: Pick<Deps, 'db'>, orgId: string, input: RenderForSendInput): Promise<RenderedForSend> {
  const found = await findTemplateVersion(db, orgId, input.templateId, { version: input.templateVersion });
  if (!found.found) {
    const message = {
      template: 'templateId: no such template',
      deleted: 'templateId: the template is deleted',
      version: `templateVersion: the template has no version ${input.templateVersion}`,
    }[found.reason];
    throw new AppError('BAD_REQUEST', message);
  }
  if (found.template.channelType !== input.channelType) {
    throw new AppError('BAD_REQUEST', `templateId: the template is for ${found.template.channelType}, not ${input.channelType}`);
  }
  const rendered = renderContent(found.version, input.variables ?? {});
  const parts = Object.fromEntries(Object.entries(rendered).filter(([, v]) => v !== null)) as Omit<RenderedForSend, 'templateId' | 'templateVersion'>;
  return { ...parts, templateId: found.template.id, templateVersion: found.version.version };
}
