import type { Batchers, Deps } from './deps.ts';
import { createIdempotencyReservations, type IdempotencyReservations } from './idempotency.ts';
import { createMessageSteps, type MessageSteps } from './messages/message-steps.ts';
import { createMessageWrites, type MessageWrites } from './messages/message-writes.ts';
import { createOutboxDeletes, type OutboxDeletes } from './outbox.ts';
import { createProviderBatches, type ProviderBatches } from './pace/provider-batches.ts';
import { createSlotTakes, type SlotTakes } from './pace/slot-takes.ts';
import { createDeliverySteps, type DeliverySteps } from './webhooks/delivery-attempt.ts';

declare module './deps.ts' {
  /**
   * The statements a process's concurrent calls share (group commit): made with its dependencies, closed with them,
   * each built on the dependencies it was made with (a copy of the dependencies with other queues needs its own).
   */
  interface Batchers {
    /** The outbox rows of added jobs, deleted together a moment later. */
    outboxDeletes: OutboxDeletes;
    /** message.send and sendBatch: messages, events, outbox rows and answers in one statement. */
    messageWrites: MessageWrites;
    /** The send-worker's claims and `sent` marks. */
    messageSteps: MessageSteps;
    /** The webhook-worker's loads and successes. */
    deliverySteps: DeliverySteps;
    /** Idempotency-Key reservations (every SDK call and SMTP mail makes one first). */
    idempotencyReservations: IdempotencyReservations;
    /** The bulk lane's provider calls, at each provider account's pace and in batches where the provider has them. */
    providerBatches: ProviderBatches;
    /** The provider-pace slots of single sends, taken together (one script call per account). */
    slotTakes: SlotTakes;
    /** Deletes the outbox rows still waiting (the groups in flight finish by themselves); stops the bulk gates. */
    close(): Promise<void>;
  }
}

export type { Batchers } from './deps.ts';

/**
 * Makes the shared statements on `deps` (everything but the batchers themselves).
 * @example const batchers = createBatchers(base); const deps = { ...base, batchers }; ...; await batchers.close();
 */
export function createBatchers(deps: Omit<Deps, 'batchers'>): Batchers {
  const outboxDeletes = createOutboxDeletes(deps);
  const providerBatches = createProviderBatches(deps);
  const dispatching = { ...deps, batchers: { outboxDeletes } };
  return {
    outboxDeletes,
    messageWrites: createMessageWrites(dispatching),
    messageSteps: createMessageSteps(dispatching),
    deliverySteps: createDeliverySteps(deps),
    idempotencyReservations: createIdempotencyReservations(deps),
    providerBatches,
    slotTakes: createSlotTakes(deps),
    close: () => {
      providerBatches.close();
      return outboxDeletes.flush();
    },
  };
}
