import type { Template as TemplateRow, TemplateVersion as VersionRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { LabelledRenderJob } from './template-renderer.ts';
import { findOrgTemplates, findTemplateVersions } from './template.store.ts';

export type RenderForSendInput = {
  templateId: string;
  /** The latest version when absent. */
  templateVersion?: number;
  variables?: Record<string, unknown>;
  channelType: 'email' | 'sms';
};

/** The rendered parts of the template's channel (absent parts omitted) and the exact version used. */
export type RenderedForSend = {
  subject?: string;
  html?: string;
  text?: string;
  body?: string;
  templateId: string;
  templateVersion: number /** The version's Reply-To ([]: none). */;
  replyTo: string[];
};

/** The version `input` asks for, checked: it exists in this organization, is not deleted, and is of the input's channel. */
function versionToRender(template: TemplateRow | undefined, versions: Map<string, VersionRow>, input: RenderForSendInput): VersionRow {
  // another organization's template is as unknown as one that never existed
  if (!template) throw new AppError('NOT_FOUND', 'templateId: Template not found');
  if (template.deletedAt) throw new AppError('BAD_REQUEST', 'templateId: the template is deleted');
  const version = versions.get(`${template.id}:${input.templateVersion ?? template.version}`);
  if (!version) throw new AppError('BAD_REQUEST', `templateVersion: the template has no version ${input.templateVersion}`);
  if (template.channelType !== input.channelType) {
    throw new AppError('BAD_REQUEST', `templateId: the template is for ${template.channelType}, not ${input.channelType}`);
  }
  return version;
}

/**
 * Renders templates for a batch of sends with two queries whatever the count (the templates, then exactly the
 * versions used), so message.sendBatch stays set-based, and one task for the renderer (worker threads, one time
 * budget for the whole request). Each entry is the rendering or the AppError for that input (see
 * `renderTemplateForSend` for the errors); a request over the render budget throws BAD_REQUEST naming the template.
 * @example
 * const results = await renderTemplatesForSend(deps, orgId, items.map((i) => ({ templateId: i.templateId, variables: i.variables, channelType: i.channelType })));
 * results.forEach((r, index) => (r instanceof AppError ? fail(index, r) : use(index, r)));
 */
export async function renderTemplatesForSend(
  { db, renderer }: Pick<Deps, 'db' | 'renderer'>,
  orgId: string,
  inputs: RenderForSendInput[],
): Promise<(RenderedForSend | AppError)[]> {
  if (inputs.length === 0) return [];
  const templates = await findOrgTemplates(db, orgId, [...new Set(inputs.map((i) => i.templateId))]);
  const byId = new Map(templates.map((t) => [t.id, t]));
  const wanted = inputs.flatMap((i) => {
    const template = byId.get(i.templateId);
    // A version number past int4 cannot exist; asking the database for it would be an error, not an answer.
    const version = i.templateVersion ?? template?.version;
    return template && version !== undefined && version <= 2_147_483_647 ? [{ templateId: template.id, version }] : [];
  });
  const versions = wanted.length ? await findTemplateVersions(db, wanted) : [];
  const byKey = new Map(versions.map((v) => [`${v.templateId}:${v.version}`, v]));
  const checked = inputs.map((input) => {
    try {
      return versionToRender(byId.get(input.templateId), byKey, input);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
  });
  const jobs: LabelledRenderJob[] = [];
  checked.forEach((version, index) => {
    if (!(version instanceof AppError)) jobs.push({ templateId: version.templateId, content: version, variables: inputs[index]!.variables ?? {} });
  });
  const rendered = await renderer.render(jobs, { orgId });
  let next = 0;
  return checked.map((version) => {
    if (version instanceof AppError) return version;
    const result = rendered[next++]!;
    if (result instanceof AppError) return result;
    const parts = Object.fromEntries(Object.entries(result).filter(([, v]) => v !== null)) as Omit<RenderedForSend, 'templateId' | 'templateVersion' | 'replyTo'>;
    return { ...parts, templateId: version.templateId, templateVersion: version.version, replyTo: version.replyTo };
  });
}

/**
 * Renders a template for message.send: the message stores what this returns, so a later template update never
 * changes a message already accepted. A template that is missing (or another organization's) is NOT_FOUND; everything
 * else wrong is BAD_REQUEST naming the field: deleted, of the other channel, a version that does not exist, a variable
 * missing, or a render over the request's time budget.
 * @example
 * const rendered = await renderTemplateForSend(deps, orgId, { templateId: 'tpl_...', variables: { code: '123456' }, channelType: 'sms' });
 * // { body: 'Your code is 123456', templateId: 'tpl_...', templateVersion: 3 }
 */
export async function renderTemplateForSend(deps: Pick<Deps, 'db' | 'renderer'>, orgId: string, input: RenderForSendInput): Promise<RenderedForSend> {
  const [result] = await renderTemplatesForSend(deps, orgId, [input]);
  if (result instanceof AppError) throw result;
  return result!;
}
