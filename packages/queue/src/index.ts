export { createRedis, type Redis } from './redis.ts';
export {
  QUEUE_NAMES,
  createQueues,
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
