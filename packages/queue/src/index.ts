export { createRedis, type Redis } from './redis.ts';
export { QUEUE_NAMES, createQueues, closeQueues, jobDataFor, redeliveryJobId, deliveryIdOfJob, type JobData, type QueueName, type Queues } from './queues.ts';
