/** The two histograms a run is measured in (this package's Metrics has them; any with the same calls will do). */
type JobMetrics = {
  jobLatency: { observe(labels: { queue: string }, seconds: number): void };
  jobDuration: { startTimer(labels: { queue: string }): (labels: { outcome: string }) => unknown };
};

/** What a BullMQ job tells about its timing (a structural subset of bullmq's `Job`). */
type TimedJob = { queueName: string; timestamp: number; attemptsStarted: number; opts: { delay?: number } };

/**
 * Wraps a BullMQ processor so every run is measured in one place: on a job's first run, its wait from becoming due
 * (`timestamp + opts.delay`) to starting; on every run, how long it took and how it ended. Later runs have no latency:
 * after `moveToDelayed` BullMQ keeps no record of when the job became due again.
 * @example new Worker('email', measureJobs(deps.metrics, sendMessageProcessor(deps, providers)), options);
 */
export function measureJobs<J extends TimedJob, Rest extends unknown[], R>(
  metrics: JobMetrics,
  processor: (job: J, ...rest: Rest) => Promise<R>,
): (job: J, ...rest: Rest) => Promise<R> {
  return async (job, ...rest) => {
    const queue = job.queueName;
    // attemptsStarted counts this run too (BullMQ increments it when the job becomes active); `job.delay` is already
    // back to 0 once a delayed job is promoted, the delay it was added with stays in `opts`
    if (job.attemptsStarted <= 1) metrics.jobLatency.observe({ queue }, Math.max(0, Date.now() - job.timestamp - (job.opts.delay ?? 0)) / 1000);
    const finished = metrics.jobDuration.startTimer({ queue });
    try {
      const result = await processor(job, ...rest);
      finished({ outcome: 'completed' });
      return result;
    } catch (error) {
      // DelayedError: the processor parked the job to run again later (a retry, or not due yet); not a failure
      finished({ outcome: error instanceof Error && error.name === 'DelayedError' ? 'delayed' : 'failed' });
      throw error;
    }
  };
}
