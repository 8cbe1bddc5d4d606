import type { SendMessageBody } from '@tidings/contracts';
import { AppError } from '../errors.ts';
import type { RenderedForSend } from '../templates/render-for-send.ts';

export type ResolvedContent = {
  subject: string | null;
  html: string | null;
  text: string | null;
  body: string | null;
  templateId: string | null;
  templateVersion: number | null;
};

const literalFields = ['subject', 'html', 'text', 'body'] as const;

/**
 * The one place a send's content is decided: the literal fields, or the rendered template (`templateId`,
 * `templateVersion`, `variables`), rendered beforehand for the whole request by `renderTemplatesForSend`. Then checks
 * the channel's needs: email a subject and html or text, sms a body. Throws BAD_REQUEST naming the field.
 * @example const content = resolveContent({ channelType: 'sms', to: '+14155550123', body: 'hi' }, undefined);
 */
export function resolveContent(input: SendMessageBody, rendered: RenderedForSend | AppError | undefined): ResolvedContent {
  const forEmail = input.channelType === 'email';
  const wrongField = forEmail ? (input.body !== undefined ? 'body' : null) : (['subject', 'html', 'text'] as const).find((f) => input[f] !== undefined);
  if (wrongField) throw new AppError('BAD_REQUEST', `${wrongField}: not allowed for channelType ${input.channelType}`);

  let content: ResolvedContent;
  if (input.templateId) {
    const literal = literalFields.find((f) => input[f] !== undefined);
    if (literal) throw new AppError('BAD_REQUEST', `${literal}: give either templateId or literal content, not both`);
    if (!rendered) throw new Error('resolveContent: a template send needs its rendering');
    if (rendered instanceof AppError) throw rendered;
    content = {
      subject: rendered.subject ?? null,
      html: rendered.html ?? null,
      text: rendered.text ?? null,
      body: rendered.body ?? null,
      templateId: rendered.templateId,
      templateVersion: rendered.templateVersion,
    };
  } else {
    if (input.templateVersion !== undefined || input.variables !== undefined) {
      throw new AppError('BAD_REQUEST', `${input.templateVersion !== undefined ? 'templateVersion' : 'variables'}: only with templateId`);
    }
    content = { subject: input.subject ?? null, html: input.html ?? null, text: input.text ?? null, body: input.body ?? null, templateId: null, templateVersion: null };
  }

  if (forEmail) {
    if (!content.subject) throw new AppError('BAD_REQUEST', 'subject: required for channelType email');
    if (!content.html && !content.text) throw new AppError('BAD_REQUEST', 'html: html or text is required for channelType email');
    return { ...content, body: null };
  }
  if (!content.body) throw new AppError('BAD_REQUEST', 'body: required for channelType sms');
  return { ...content, subject: null, html: null, text: null };
}
