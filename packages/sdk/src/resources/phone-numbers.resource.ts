import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type AvailablePhoneNumber = Schemas['AvailablePhoneNumber'];
export type PhoneNumber = Schemas['PhoneNumber'];
export type PhoneNumberType = PhoneNumber['type'];
export type AvailablePhoneNumbers = Schemas['AvailablePhoneNumberList'];
/** `country` is required; `areaCode`, `contains`, `type` (default `local`) and `limit` (default 20) are not. */
export type SearchAvailablePhoneNumbersParams = OperationQuery<'phoneNumber.searchAvailable'>;
export type PurchasePhoneNumberParams = OperationBody<'phoneNumber.purchase'>;
export type UpdatePhoneNumberParams = OperationBody<'phoneNumber.update'>;
export type ListPhoneNumbersParams = ListParams;

/** The phoneNumber operations (Settings > Phone Numbers). Needs a `full` key. */
export class PhoneNumbers extends Resource {
  /**
   * phoneNumber.searchAvailable: the provider's numbers that can be bought now (one page, not paginated).
   * @example const { data } = await tidings.phoneNumbers.searchAvailable({ country: 'US', areaCode: '415', limit: 5 });
   */
  searchAvailable(params: SearchAvailablePhoneNumbersParams, options?: RequestOptions): Promise<AvailablePhoneNumbers> {
    return this.client.call('phoneNumber.searchAvailable', { query: params }, options);
  }

  /**
   * phoneNumber.purchase: buys a number from a search. Sent with an `Idempotency-Key` (generated when not given),
   * so a retry never buys twice.
   * @example const number = await tidings.phoneNumbers.purchase({ number: '+14155550123', friendlyName: 'Support' });
   */
  purchase(params: PurchasePhoneNumberParams, options?: RequestOptions): Promise<PhoneNumber> {
    return this.client.call('phoneNumber.purchase', { body: params }, options);
  }

  /**
   * phoneNumber.list: owned numbers, newest first.
   * @example for await (const number of tidings.phoneNumbers.list()) console.log(number.number, number.isDefault);
   */
  list(params: ListPhoneNumbersParams = {}, options?: RequestOptions): PageIterator<PhoneNumber> {
    return this.client.list('phoneNumber.list', { query: params }, options);
  }

  /**
   * phoneNumber.get: an owned number; released numbers are not found.
   * @example const number = await tidings.phoneNumbers.get('pn_123');
   */
  get(id: string, options?: RequestOptions): Promise<PhoneNumber> {
    return this.client.call('phoneNumber.get', { params: { id } }, options);
  }

  /**
   * phoneNumber.update: `friendlyName` (`null` clears it) and `isDefault` (unsets the previous default).
   * @example await tidings.phoneNumbers.update('pn_123', { isDefault: true });
   */
  update(id: string, params: UpdatePhoneNumberParams, options?: RequestOptions): Promise<PhoneNumber> {
    return this.client.call('phoneNumber.update', { params: { id }, body: params }, options);
  }

  /**
   * phoneNumber.release: gives the number back at the provider; afterwards it is not found and cannot send.
   * @example await tidings.phoneNumbers.release('pn_123');
   */
  release(id: string, options?: RequestOptions): Promise<void> {
    return this.client.call('phoneNumber.release', { params: { id } }, options);
  }
}
