import type { Deps } from './deps.ts';
import { createIdempotencyReservations, type IdempotencyReservations } from './idempotency.ts';
import { createMessageSteps, type MessageSteps } from './messages/delivery.ts';
import { createMessageWrites, type MessageWrites } from './messages/message-writes.store.ts';
import { createOutboxDeletes, type OutboxDeletes } from './outbox.ts';
import { createDeliverySteps, type DeliverySteps } from './webhooks/delivery-attempt.ts';

/**
 * The statements a process's concurrent calls share (group commit): made with its dependencies, closed with them,
 * each built on the dependencies it was made with (a copy of the dependencies with other queues needs its own).
 */
export type Batchers = {
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
  /** Deletes the outbox rows still waiting (the groups in flight finish by themselves). */
  close(): Promise<void>;
};

/**
 * Makes the shared statements on `deps` (everything but the batchers themselves).
 * @example const batchers = createBatchers(base); const deps = { ...base, batchers }; ...; await batchers.close();
 */
export function createBatchers(deps: Omit<Deps, 'batchers'>): Batchers {
  const outboxDeletes = createOutboxDeletes(deps);
  const dispatching = { ...deps, batchers: { outboxDeletes } };
  return {
    outboxDeletes,
    messageWrites: createMessageWrites(dispatching),
    messageSteps: createMessageSteps(dispatching),
    deliverySteps: createDeliverySteps(deps),
    idempotencyReservations: createIdempotencyReservations(deps),
    close: () => outboxDeletes.flush(),
  };
}
