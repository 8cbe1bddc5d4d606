export { SendDeferred, type DeferredReason } from './deferral.ts';
export { paceAccountFor } from './pace-accounts.ts';
export { correctProviderPace, paceKey, takeProviderSlot, type PaceAccount, type PaceSlot } from './pace-limiter.ts';
export type { ProviderBatches } from './provider-batches.ts';
export { providerPaceStatus, PACE_STATUS_MAX_NUMBERS, type PaceAccountStatus } from './pace-status.ts';
