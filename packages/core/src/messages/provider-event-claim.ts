// The provider-event claim's statements live in the message store; the names stay here for their callers.
export { claimProviderEvent, claimProviderEventSql } from './message.store.ts';
