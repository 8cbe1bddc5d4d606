export { createRedis, type Redis } from './redis.ts';
