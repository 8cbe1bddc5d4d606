/** Why a message waits rather than goes: what message.get shows as `deferredReason`. */
export type DeferredReason = 'provider_rate_limit' | 'sender_rate_limit' | 'quiet_hours' | 'send_rate';

/**
 * The message waits for a provider's (or a sending number's) pace until `at`: neither a failure nor an attempt. Thrown
 * from the send path, turned by the send attempt into a delayed job.
 */
export class SendDeferred extends Error {
  constructor(
    readonly at: Date,
    readonly reason: DeferredReason,
    readonly provider: string,
  ) {
    super(`waiting for ${provider}'s pace until ${at.toISOString()}`);
    this.name = 'SendDeferred';
  }
}
