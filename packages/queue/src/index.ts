export { createRedis, type Redis } from './redis.ts';
export { QUEUE_NAMES, createQueues, closeQueues, broadcastJobId, jobDataFor, type BroadcastStep, type JobData, type QueueName, type Queues } from './queues.ts';
