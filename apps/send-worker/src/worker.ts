// The send-worker process: `node apps/send-worker/dist/worker.js` (built) or `tsx apps/send-worker/src/worker.ts`.
import './tracing.ts'; // first: see tracing.ts
import { openDeps } from '@tidings/bootstrap';
import { runProcess } from '@tidings/runtime';
import { startSendWorker } from './send-worker.ts';

// A message whose job is cut off by the exit is never sent twice by our side: the job is taken over as stalled.
runProcess('send-worker', {
  // its statements are fixed shapes run many times: planned once each (planning was about 40 % of Postgres's CPU per sent message)
  open: (config) => openDeps(config, 'send-worker', { genericPlans: true, runsJobs: true }),
  opsPort: (config) => config.sendWorker.metricsPort,
  stopWithinMs: () => 30_000,
  async start(deps) {
    const worker = await startSendWorker(deps);
    deps.logger.info(
      { queues: deps.config.sendWorker.queues, concurrency: deps.config.sendWorker.concurrency, bulkConcurrency: deps.config.sendWorker.bulkConcurrency },
      'send-worker consuming',
    );
    return worker;
  },
});
