import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type Verification = Schemas['Verification'];
export type VerificationCheck = Schemas['VerificationCheck'];
export type CreateVerificationParams = OperationBody<'verification.create'>;
export type CheckVerificationParams = OperationBody<'verification.check'>;
export type ListVerificationsParams = OperationQuery<'verification.list'>;

/** Verify: one-time codes by SMS or email. */
export class Verifications extends Resource {
  /**
   * verification.create: sends a code (or resends the pending one of `to` after its cooldown).
   * @example const verification = await tidings.verifications.create({ channelType: 'sms', to: '+14155550123' });
   */
  create(params: CreateVerificationParams, options?: RequestOptions): Promise<Verification> {
    return this.client.call('verification.create', { body: params }, options);
  }

  /**
   * verification.check: `approved` once for the right code.
   * @example const { status } = await tidings.verifications.check('ver_123', { code: '492817' });
   */
  check(id: string, params: CheckVerificationParams, options?: RequestOptions): Promise<VerificationCheck> {
    return this.client.call('verification.check', { params: { id }, body: params }, options);
  }

  /**
   * verification.get: never the code.
   * @example const verification = await tidings.verifications.get('ver_123');
   */
  get(id: string, options?: RequestOptions): Promise<Verification> {
    return this.client.call('verification.get', { params: { id } }, options);
  }

  /**
   * verification.cancel: its code stops working.
   * @example await tidings.verifications.cancel('ver_123');
   */
  cancel(id: string, options?: RequestOptions): Promise<Verification> {
    return this.client.call('verification.cancel', { params: { id } }, options);
  }

  /**
   * verification.list: newest first.
   * @example for await (const v of tidings.verifications.list({ status: 'approved' })) console.log(v.id);
   */
  list(params: ListVerificationsParams = {}, options?: RequestOptions): PageIterator<Verification> {
    return this.client.list('verification.list', { query: params }, options);
  }
}
