import { Queue, type QueueOptions } from 'bullmq';
import type { Redis } from './redis.ts';

/**
 * Every BullMQ queue. Jobs carry only the id of the row they work on, and use it as their jobId, so adding the
 * same work twice is a no-op. `email`, `sms` and `webhooks` are the transactional lanes, the `-bulk` ones the bulk
 * lanes (see lanes.ts): a row's lane never changes, so its job is in one queue only.
 */
export const QUEUE_NAMES = ['email', 'sms', 'webhooks', 'maintenance', 'broadcasts', 'email-bulk', 'sms-bulk', 'webhooks-bulk', 'segment-counts'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

type SendJob = { messageId: string };
/**
 * `createdAt`, the delivery's partition key (ISO), lets the worker's statements read one month's partition rather
 * than probe each; absent from jobs of earlier versions and from the outbox relay's, which then probe them all.
 * `webhookId` and `orgId`: set by the webhook-worker once it knows them (a parked or retried delivery), so that the
 * job's next run looks at the endpoint's slots before it claims the delivery, and takes its organization's turn
 * again whenever it waits once more.
 */
type DeliveryJob = { deliveryId: string; createdAt?: string; webhookId?: string; orgId?: string };

export type JobData = {
  email: SendJob;
  sms: SendJob;
  'email-bulk': SendJob;
  'sms-bulk': SendJob;
  webhooks: DeliveryJob;
  'webhooks-bulk': DeliveryJob;
  maintenance: Record<string, never>;
  /** One step of a broadcast's fan-out (see `broadcastJobId`). */
  broadcasts: BroadcastStep;
  /**
   * Count a segment's contacts again (jobId = the segment id: one waiting at a time per segment). `updatedAt` (ms):
   * asked by segment.update for that version of the criteria (jobId `<segment id>.<updatedAt>`), skipped once a
   * newer update has asked for its own.
   */
  'segment-counts': { segmentId: string; updatedAt?: number };
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

/**
 * A broadcast's fan-out steps: `start` fixes the recipients, `chunk` writes one chunk's messages, `finish` closes it.
 * A chunk's `waits`: how often it was held back by its organization's window (those runs are no render attempts).
 */
export type BroadcastStep =
  | { broadcastId: string; step: 'start' }
  | { broadcastId: string; step: 'chunk'; chunk: number; waits?: number }
  | { broadcastId: string; step: 'finish' };

/**
 * The jobId of a broadcast step, from which `jobDataFor` reads the step back: the broadcast id alone starts it,
 * `<id>.<n>` is chunk n, `<id>.finish` closes it.
 * @example broadcastJobId({ broadcastId: 'brd_1', step: 'chunk', chunk: 4 }) // 'brd_1.4'
 */
export function broadcastJobId(step: BroadcastStep): string {
  if (step.step === 'start') return step.broadcastId;
  return `${step.broadcastId}.${step.step === 'chunk' ? step.chunk : 'finish'}`;
}

function broadcastStepOf(jobId: string): BroadcastStep {
  const [broadcastId = '', suffix] = jobId.split('.');
  if (suffix === undefined) return { broadcastId, step: 'start' };
  return suffix === 'finish' ? { broadcastId, step: 'finish' } : { broadcastId, step: 'chunk', chunk: Number(suffix) };
}

/** The payload of a job in `queue` whose jobId (the row's id) is `jobId`; `createdAt`: a delivery's partition key. */
export function jobDataFor<Q extends QueueName>(queue: Q, jobId: string, createdAt?: Date): JobData[Q] {
  switch (queue) {
    case 'email':
    case 'sms':
    case 'email-bulk':
    case 'sms-bulk':
      return { messageId: jobId } as JobData[Q];
    case 'webhooks':
    case 'webhooks-bulk':
      return (createdAt ? { deliveryId: deliveryIdOfJob(jobId), createdAt: createdAt.toISOString() } : { deliveryId: deliveryIdOfJob(jobId) }) as JobData[Q];
    case 'broadcasts':
      return broadcastStepOf(jobId) as JobData[Q];
    case 'segment-counts': {
      const [segmentId = '', updatedAt] = jobId.split('.');
      return (updatedAt ? { segmentId, updatedAt: Number(updatedAt) } : { segmentId }) as JobData[Q];
    }
    default:
      return {} as JobData[Q];
  }
}

export type Queues = { [Q in QueueName]: Queue<JobData[Q]> };

/**
 * The BullMQ prefix of `queue`'s keys. On a Redis Cluster it carries the queue's name as hash tag, so each queue's
 * keys (which its scripts touch together) share one slot while different queues spread over the masters; on one
 * Redis it stays `<prefix>:bull`, the key names of earlier versions.
 * @example bullPrefix('tidings', 'email', true) // 'tidings:bull:{email}'
 */
export function bullPrefix(prefix: string, queue: QueueName, cluster: boolean): string {
  return cluster ? `${prefix}:bull:{${queue}}` : `${prefix}:bull`;
}

/**
 * Opens every queue on one connection, under `prefix` (so test runs and installs sharing a Redis never meet).
 * `telemetry` (while tracing): each add is a producer span, and the job carries the trace on to its worker.
 * @example const queues = createQueues(redis, config.redisPrefix); await queues.email.add('send', { messageId }, { jobId: messageId });
 */
export function createQueues(connection: Redis, prefix: string, telemetry?: QueueOptions['telemetry']): Queues {
  const open = <Q extends QueueName>(name: Q) => new Queue<JobData[Q]>(name, { connection, prefix: bullPrefix(prefix, name, connection.isCluster), telemetry });
  return Object.fromEntries(QUEUE_NAMES.map((name) => [name, open(name)])) as Queues;
}

/** Closes every queue (not the shared connection). */
export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
