import type { Message as MessageRow } from '@tidings/db';
import type { ProviderError, ProviderName } from '@tidings/providers';
import { messageLaneOf, type Lane } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { recordDeferral } from '../messages/delivery.store.ts';
import { SendDeferred } from './deferral.ts';
import { correctProviderPace, spaceCall, takeProviderSlot, type PaceAccount } from './pace-limiter.ts';

/**
 * Takes the message's slot of `account` in its lane, or throws SendDeferred with the later slot booked for it. A
 * message deferred before holds the slot it was given (`deferredUntil`) and takes no other.
 * @example await takeSlotOrDefer(deps, account, claim.message); // then call the provider
 */
export async function takeSlotOrDefer(deps: Pick<Deps, 'rateLimits' | 'config' | 'metrics' | 'batchers'>, account: PaceAccount, message: MessageRow): Promise<void> {
  if (message.deferredReason === account.reason && message.deferredUntil) {
    // a job may run a moment before its delay ends; well before, it waits for its slot again
    if (message.deferredUntil.getTime() <= Date.now() + 50) return spaceCall(deps, account);
    throw new SendDeferred(message.deferredUntil, account.reason, account.provider);
  }
  const slot = await deps.batchers.slotTakes(account, { lane: messageLaneOf(message), reserve: true });
  if (slot.kind === 'now') return spaceCall(deps, account);
  deps.metrics.providerDeferrals.inc({ provider: account.provider, reason: account.reason });
  throw new SendDeferred(slot.kind === 'reserved' ? slot.at : new Date(Date.now() + slot.waitMs), account.reason, account.provider);
}

/**
 * The provider answered 429 (or throttled) despite the limiter: the limiter is held back for every process as the
 * provider asked, and the message gets the next slot after that. Returns the deferral to throw.
 * @example throw await deferAfterRateLimit(deps, { provider: 'resend', account, lane: 'transactional' }, error);
 */
export async function deferAfterRateLimit(
  deps: Pick<Deps, 'rateLimits' | 'config' | 'metrics'>,
  { provider, account, lane }: { provider: ProviderName; account: PaceAccount | null; lane: Lane },
  error: ProviderError,
): Promise<SendDeferred> {
  deps.metrics.providerDeferrals.inc({ provider, reason: 'provider_rate_limit' });
  const fallbackAt = new Date(Date.now() + (error.retryAfterMs ?? 1000));
  if (!account) return new SendDeferred(fallbackAt, 'provider_rate_limit', provider);
  await correctProviderPace(deps, account, undefined, { isRateLimited: true, retryAfterMs: error.retryAfterMs });
  const slot = await takeProviderSlot(deps, account, lane, { reserve: true });
  return new SendDeferred(slot.kind === 'reserved' ? slot.at : new Date(), account.reason, provider);
}

/**
 * Records that the message waits (see recordDeferral): shown by message.get, and its attempt given back.
 * @example await deferMessage(deps, message.id, deferred);
 */
export async function deferMessage(deps: Pick<Deps, 'db'>, messageId: string, deferred: SendDeferred): Promise<void> {
  await recordDeferral(deps.db, messageId, { until: deferred.at, reason: deferred.reason });
}
