import type { Deps } from '../deps.ts';
import { renderTemplateForSend } from '../templates/render-for-send.ts';

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
 * Renders a template for a send: the content and the version used are stored on the message, so a later template
 * update never changes a message already accepted.
 * @example const rendered = await renderTemplateForMessage(deps, orgId, { templateId, variables, channelType: 'email' });
 */
export async function renderTemplateForMessage(deps: Deps, orgId: string, args: TemplateRenderArgs): Promise<RenderedTemplate> {
  return renderTemplateForSend(deps, orgId, args);
}
