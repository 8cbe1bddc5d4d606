import type { Template as TemplateRow, TemplateVersion as VersionRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { renderContent } from './template-engine.ts';

export type RenderForSendInput = {
  templateId: string;
  /** The latest version when absent. */
  templateVersion?: number;
  variables?: Record<string, unknown>;
  channelType: 'email' | 'sms';
};

/** The rendered parts of the template's channel (absent parts omitted) and the exact version used. */
export type RenderedForSend = { subject?: string; html?: string; text?: string; body?: string; templateId: string; templateVersion: number };

function renderOne(template: TemplateRow | undefined, versions: Map<string, VersionRow>, input: RenderForSendInput): RenderedForSend {
  if (!template) throw new AppError('BAD_REQUEST', 'templateId: no such template');
  if (template.deletedAt) throw new AppError('BAD_REQUEST', 'templateId: the template is deleted');
  const version = versions.get(`${template.id}:${input.templateVersion ?? template.version}`);
  if (!version) throw new AppError('BAD_REQUEST', `templateVersion: the template has no version ${input.templateVersion}`);
  if (template.channelType !== input.channelType) {
    throw new AppError('BAD_REQUEST', `templateId: the template is for ${template.channelType}, not ${input.channelType}`);
  }
  const rendered = renderContent(version, input.variables ?? {});
  const parts = Object.fromEntries(Object.entries(rendered).filter(([, v]) => v !== null)) as Omit<RenderedForSend, 'templateId' | 'templateVersion'>;
  return { ...parts, templateId: template.id, templateVersion: version.version };
}

/**
 * Renders templates for a batch of sends with two queries whatever the count (the templates, then exactly the
 * versions used), so message.sendBatch stays set-based. Each entry is the rendering or the AppError for that input
 * (see `renderTemplateForSend` for the errors).
 * @example
 * const results = await renderTemplatesForSend(deps, orgId, items.map((i) => ({ templateId: i.templateId, variables: i.variables, channelType: i.channelType })));
 * results.forEach((r, index) => (r instanceof AppError ? fail(index, r) : use(index, r)));
 */
export async function renderTemplatesForSend({ db }: Pick<Deps, 'db'>, orgId: string, inputs: RenderForSendInput[]): Promise<(RenderedForSend | AppError)[]> {
  if (inputs.length === 0) return [];
  const templates = await db.template.findMany({ where: { orgId, id: { in: [...new Set(inputs.map((i) => i.templateId))] } } });
  const byId = new Map(templates.map((t) => [t.id, t]));
  const wanted = inputs.flatMap((i) => {
    const template = byId.get(i.templateId);
    // A version number past int4 cannot exist; asking the database for it would be an error, not an answer.
    const version = i.templateVersion ?? template?.version;
    return template && version !== undefined && version <= 2_147_483_647 ? [{ templateId: template.id, version }] : [];
  });
  const versions = wanted.length ? await db.templateVersion.findMany({ where: { OR: wanted } }) : [];
  const byKey = new Map(versions.map((v) => [`${v.templateId}:${v.version}`, v]));
  return inputs.map((input) => {
    try {
      return renderOne(byId.get(input.templateId), byKey, input);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
  });
}

/**
 * Renders a template for message.send: the message stores what this returns, so a later template update never
 * changes a message already accepted. Everything wrong is BAD_REQUEST naming the field: a template that is missing
 * (or another organization's), deleted, of the other channel, a version that does not exist, or a variable missing.
 * @example
 * const rendered = await renderTemplateForSend(deps, orgId, { templateId: 'tpl_...', variables: { code: '123456' }, channelType: 'sms' });
 * // { body: 'Your code is 123456', templateId: 'tpl_...', templateVersion: 3 }
 */
export async function renderTemplateForSend(deps: Pick<Deps, 'db'>, orgId: string, input: RenderForSendInput): Promise<RenderedForSend> {
  const [result] = await renderTemplatesForSend(deps, orgId, [input]);
  if (result instanceof AppError) throw result;
  return result!;
}
