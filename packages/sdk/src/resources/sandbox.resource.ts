import type { RequestOptions } from '../client.ts';
import type { OperationBody, Schemas } from '../operation-types.ts';
import { Resource } from './resource.ts';

type Message = Schemas['Message'];
export type SandboxInboundParams = OperationBody<'sandbox.inbound'>;

/** The sandbox's side of the conversation, for `sk_test_` keys. */
export class Sandbox extends Resource {
  /**
   * sandbox.inbound: a person writes to you; it arrives as a provider's inbound would (keywords included). Test keys only.
   * @example const message = await tidings.sandbox.inbound({ channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
   */
  inbound(params: SandboxInboundParams, options?: RequestOptions): Promise<Message> {
    return this.client.call('sandbox.inbound', { body: params }, options);
  }
}
