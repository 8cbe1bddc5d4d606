import { recountSegment, type Deps } from '@tidings/core';
import type { JobData } from '@tidings/queue';
import type { Job } from 'bullmq';

/**
 * The `segment-counts` queue's processor: counts a segment's contacts again and stores the count, for segment.get,
 * which never counts itself. Its own queue and slots, so an expensive segment holds neither sends nor the outbox relay.
 * @example new Worker('segment-counts', segmentCountProcessor(deps), { connection, prefix, concurrency: 2 });
 */
export const segmentCountProcessor = (deps: Deps) => async (job: Job<JobData['segment-counts']>) => recountSegment(deps, job.data.segmentId, job.data.updatedAt);
