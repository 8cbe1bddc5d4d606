import type { CreateTemplateBody, PreviewTemplateBody, Template, TemplateListQuery, TemplatePreview, TemplateVersionsQuery, UpdateTemplateBody, z } from '@tidings/contracts';
import type { RequestOptions } from '../client.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type { Template, TemplatePreview };
export type CreateTemplateParams = z.input<typeof CreateTemplateBody>;
export type UpdateTemplateParams = z.input<typeof UpdateTemplateBody>;
export type PreviewTemplateParams = z.input<typeof PreviewTemplateBody>;
export type ListTemplatesParams = ListParams & Partial<Omit<z.input<typeof TemplateListQuery>, keyof ListParams>>;
export type ListTemplateVersionsParams = ListParams & Partial<Omit<z.input<typeof TemplateVersionsQuery>, keyof ListParams>>;
export type GetTemplateParams = { version?: number; includeDeleted?: 'true' | 'false' };

/** The template operations: versioned email and SMS content with `{{placeholders}}`. */
export class Templates extends Resource {
  /**
   * template.create: version 1.
   * @example const tpl = await tidings.templates.create({ name: 'welcome', channelType: 'sms', body: 'Hi {{firstName}}' });
   */
  create(params: CreateTemplateParams, options?: RequestOptions): Promise<Template> {
    return this.client.call('template.create', { body: params }, options);
  }

  /**
   * template.list: the latest version of each template, newest first.
   * @example for await (const tpl of tidings.templates.list({ channelType: 'email' })) console.log(tpl.name);
   */
  list(params: ListTemplatesParams = {}, options?: RequestOptions): PageIterator<Template> {
    return this.client.list<Template>('template.list', { query: params }, options);
  }

  /**
   * template.get: the latest version, or `{ version }`.
   * @example const v1 = await tidings.templates.get('tpl_123', { version: 1 });
   */
  get(id: string, params: GetTemplateParams = {}, options?: RequestOptions): Promise<Template> {
    return this.client.call('template.get', { params: { id }, query: params }, options);
  }

  /**
   * template.update: writes version N+1.
   * @example const { version } = await tidings.templates.update('tpl_123', { body: 'Hello {{firstName}}' });
   */
  update(id: string, params: UpdateTemplateParams, options?: RequestOptions): Promise<Template> {
    return this.client.call('template.update', { params: { id }, body: params }, options);
  }

  /**
   * template.delete: a soft delete; sends using it are refused afterwards.
   * @example await tidings.templates.delete('tpl_123');
   */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('template.delete', { params: { id } }, options);
  }

  /**
   * template.listVersions: every version, newest first.
   * @example const versions = await tidings.templates.listVersions('tpl_123').toArray();
   */
  listVersions(id: string, params: ListTemplateVersionsParams = {}, options?: RequestOptions): PageIterator<Template> {
    return this.client.list<Template>('template.listVersions', { params: { id }, query: params }, options);
  }

  /**
   * template.preview: renders a version with the given variables, without sending.
   * @example const { subject, html } = await tidings.templates.preview('tpl_123', { variables: { firstName: 'Ada' } });
   */
  preview(id: string, params: PreviewTemplateParams = {}, options?: RequestOptions): Promise<TemplatePreview> {
    return this.client.call('template.preview', { params: { id }, body: params }, options);
  }
}
