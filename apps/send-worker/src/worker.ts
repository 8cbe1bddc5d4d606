// The send-worker process: `node`/`tsx apps/send-worker/src/worker.ts`, configured only by the environment.
import { runWorkerProcess } from '@tidings/core';
import { startSendWorker } from './send-worker.ts';

// A message whose job is cut off by the exit is never sent twice by our side: the job is taken over as stalled.
runWorkerProcess('send-worker', {
  metricsPort: (config) => config.sendWorker.metricsPort,
  stopWithinMs: () => 30_000,
  async start(deps) {
    const worker = await startSendWorker(deps);
    deps.logger.info({ queues: deps.config.sendWorker.queues, concurrency: deps.config.sendWorker.concurrency }, 'send-worker consuming');
    return worker;
  },
});
