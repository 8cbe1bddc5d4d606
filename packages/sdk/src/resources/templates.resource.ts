import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type Template = Schemas['Template'];
export type TemplatePreview = Schemas['TemplatePreview'];
export type CreateTemplateParams = OperationBody<'template.create'>;
export type UpdateTemplateParams = OperationBody<'template.update'>;
export type PreviewTemplateParams = OperationBody<'template.preview'>;
export type ListTemplatesParams = OperationQuery<'template.list'>;
export type ListTemplateVersionsParams = OperationQuery<'template.listVersions'>;
export type GetTemplateParams = OperationQuery<'template.get'>;

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
    return this.client.list('template.list', { query: params }, options);
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
    return this.client.list('template.listVersions', { params: { id }, query: params }, options);
  }

  /**
   * template.preview: renders a version with the given variables, without sending.
   * @example const { subject, html } = await tidings.templates.preview('tpl_123', { variables: { firstName: 'Ada' } });
   */
  preview(id: string, params: PreviewTemplateParams = {}, options?: RequestOptions): Promise<TemplatePreview> {
    return this.client.call('template.preview', { params: { id }, body: params }, options);
  }
}
