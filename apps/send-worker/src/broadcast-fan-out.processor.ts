import { DelayedError, type Job } from 'bullmq';
import { backoffDelayMs, expandBroadcastChunk, finishBroadcast, startBroadcast, type Deps, type StepResult } from '@tidings/core';
import type { BroadcastStep } from '@tidings/queue';

function runStep(deps: Deps, step: BroadcastStep, attempt: number): Promise<StepResult> {
  if (step.step === 'start') return startBroadcast(deps, step.broadcastId);
  if (step.step === 'chunk') return expandBroadcastChunk(deps, step.broadcastId, step.chunk, { attempt });
  return finishBroadcast(deps, step.broadcastId);
}

/**
 * The `broadcasts` queue (the fan-out): start (fix the recipients, cut them into chunks), chunk (render and write
 * one chunk's messages, add their jobs) and finish (mark the broadcast sent once every message reached a
 * provider). Every step is safe to repeat. A step that fails on our side (Postgres, Redis) runs again after backoff
 * instead of failing for good, because no other job would ever do its work; a scheduled start that ran early,
 * a chunk held back by its organization's window and a finish not yet due are parked until their time.
 */
export const broadcastFanOutProcessor = (deps: Deps) => async (job: Job<BroadcastStep>, token?: string) => {
  let result: StepResult;
  try {
    // a run held back by the organization's window was no try at rendering
    result = await runStep(deps, job.data, job.attemptsStarted - (job.data.step === 'chunk' ? (job.data.waits ?? 0) : 0));
  } catch (error) {
    const delayMs = backoffDelayMs(job.attemptsStarted, { baseMs: deps.config.sendWorker.backoffBaseMs, maxMs: deps.config.sendWorker.backoffMaxMs });
    deps.logger.error({ broadcastId: job.data.broadcastId, step: job.data.step, err: error, delayMs }, 'broadcast step failed; running it again later');
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
  if (result.kind === 'done') return { outcome: result.outcome };
  if (job.data.step === 'chunk') await job.updateData({ ...job.data, waits: (job.data.waits ?? 0) + 1 });
  await job.moveToDelayed(result.runAt.getTime(), token);
  throw new DelayedError();
};
