import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';

export type TemplateRenderArgs = {
  templateId: string;
  templateVersion?: number;
  variables?: Record<string, string | number | boolean>;
  channelType: 'email' | 'sms';
};

export type RenderedTemplate = {
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  body?: string | null;
  templateId: string;
  templateVersion: number;
};

/**
 * Renders a template for a send. INTEGRATION POINT: the templates module provides
 * `renderTemplateForSend(deps, orgId, args)`; once both are merged this function returns its result. Until then
 * no template exists, so every templateId is not found.
 * @example const rendered = await renderTemplateForMessage(deps, orgId, { templateId, variables, channelType: 'email' });
 */
export async function renderTemplateForMessage(_deps: Deps, _orgId: string, _args: TemplateRenderArgs): Promise<RenderedTemplate> {
  throw new AppError('BAD_REQUEST', 'templateId: Template not found');
}
