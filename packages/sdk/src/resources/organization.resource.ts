import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import { Resource } from './resource.ts';

export type Organization = Schemas['Organization'];
export type UpdateOrganizationParams = OperationBody<'organization.update'>;

/** The organization's own settings: the countries an SMS may go to. */
export class OrganizationSettings extends Resource {
  /**
   * organization.get
   * @example const { smsCountries } = await tidings.organization.get();
   */
  get(options?: RequestOptions): Promise<Organization> {
    return this.client.call('organization.get', {}, options);
  }

  /**
   * organization.update
   * @example await tidings.organization.update({ smsCountries: ['US', 'CA'] });
   */
  update(params: UpdateOrganizationParams, options?: RequestOptions): Promise<Organization> {
    return this.client.call('organization.update', { body: params }, options);
  }
}
