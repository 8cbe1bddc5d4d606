import { Queue, type ConnectionOptions } from 'bullmq';

/**
 * Every BullMQ queue. Jobs carry only the id of the row they work on, and use it as their jobId, so adding the
 * same work twice is a no-op.
 */
export const QUEUE_NAMES = ['email', 'sms', 'webhooks', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type JobData = {
  email: { messageId: string };
  sms: { messageId: string };
  webhooks: { deliveryId: string };
  maintenance: Record<string, never>;
};

/**
 * The jobId of a redelivery (webhook.retryEvent, webhook.replay): the delivery id with a suffix, because BullMQ keeps
 * finished jobs for a while and would ignore a new job under the same id.
 * @example redeliveryJobId('dlv_1', 3) // 'dlv_1.redeliver-3'
 */
export function redeliveryJobId(deliveryId: string, attempts: number): string {
  return `${deliveryId}.redeliver-${attempts}`;
}

/** The delivery id a `webhooks` jobId stands for (the jobId itself, or a redelivery's without its suffix). */
export function deliveryIdOfJob(jobId: string): string {
  const dot = jobId.indexOf('.');
  return dot === -1 ? jobId : jobId.slice(0, dot);
}

/** The payload of a job in `queue` whose jobId (the row's id) is `jobId`. */
export function jobDataFor<Q extends QueueName>(queue: Q, jobId: string): JobData[Q] {
  switch (queue) {
    case 'email':
    case 'sms':
      return { messageId: jobId } as JobData[Q];
    case 'webhooks':
      return { deliveryId: deliveryIdOfJob(jobId) } as JobData[Q];
    default:
      return {} as JobData[Q];
  }
}

export type Queues = { [Q in QueueName]: Queue<JobData[Q]> };

/**
 * Opens every queue on one connection, under `prefix` (so test runs and installs sharing a Redis never meet).
 * @example const queues = createQueues(redis, config.redisPrefix); await queues.email.add('send', { messageId }, { jobId: messageId });
 */
export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  const open = <Q extends QueueName>(name: Q) => new Queue<JobData[Q]>(name, { connection, prefix: `${prefix}:bull` });
  return { email: open('email'), sms: open('sms'), webhooks: open('webhooks'), maintenance: open('maintenance') } as Queues;
}

/** Closes every queue (not the shared connection). */
export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
