export { createRedis, duplicateRedis, isClusterUrl, parseClusterUrl, type Redis } from './redis.ts';
export {
  QUEUE_NAMES,
  createQueues,
  bullPrefix,
  closeQueues,
  broadcastJobId,
  jobDataFor,
  redeliveryJobId,
  deliveryIdOfJob,
  type BroadcastStep,
  type JobData,
  type QueueName,
  type Queues,
} from './queues.ts';
export { laneOfQueue, messageLaneOf, sendQueueOf, webhookQueueOf, type Lane, type SendQueue, type WebhookQueue } from './lanes.ts';
export { takeTurnAgain, takeTurns, TURN_QUEUES } from './org-turns.ts';
