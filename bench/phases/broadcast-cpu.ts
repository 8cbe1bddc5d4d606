// The broadcast phase of `bench:cpu-cost`: CPU per 1,000 messages a broadcast's fan-out creates (the start's recipient
// statement and every chunk: render, write, enqueue), of the fan-out process and of its own Postgres backends, to a
// segment of every contact and then to an opt-out topic that every second contact left (the topic join's cost is
// the difference), after a first, unmetered broadcast (the process's warm-up). No send-worker runs: the messages only wait in the bulk queue.
import type { ChildProcess } from 'node:child_process';
import { createBroadcast, sendBroadcast } from '@tidings/core';
import { closeQueues, createQueues } from '@tidings/queue';
import { drain, progress, startProcess, stopProcess, waitForWorker, type Bench } from '../harness.ts';
import { seedBroadcastOrg, seedHalfTopic, waitingJobs } from './broadcast.ts';

/** Starts metering `fanOut` (and its backends); resolves to stop() giving CPU seconds by part. */
export type StartMeter = (fanOut: ChildProcess) => Promise<() => Promise<Record<string, number>>>;

export async function measureBroadcastCost(bench: Bench, contacts: number, env: Record<string, string>, startMeter: StartMeter) {
  const { deps } = bench;
  const { db, redis } = deps;
  const { orgId, segment, template } = await seedBroadcastOrg(bench, contacts);
  const prefix = bench.prefix('broadcast-cpu');
  const queues = createQueues(redis, prefix);
  const fanOut = startProcess('fan-out', 'apps/send-worker/src/worker.ts', {
    ...bench.env,
    ...env,
    REDIS_PREFIX: prefix,
    SEND_WORKER_QUEUES: 'broadcasts',
    RESEND_API_KEY: 're_bench',
    BROADCAST_ORG_WINDOW: '1000000', // nothing drains the bulk lane: the window would stop the fan-out
    SEND_WORKER_METRICS_PORT: '0',
  });
  const benchDeps = { ...deps, queues };
  let waitingBefore = 0;
  // one broadcast to `target` (a segment or a topic): CPU per 1,000 messages created, and the wall seconds
  const fanOutTo = async (label: string, target: { segmentId?: string; topicId?: string }, messages: number) => {
    const draft = await createBroadcast(benchDeps, orgId, 'live', { name: label, channelType: 'email', templateId: template.id, ...target, variables: { month: 'May' } });
    const stop = await startMeter(fanOut);
    progress(`broadcast: fan-out to a ${label} of ${messages}`);
    const started = performance.now();
    await sendBroadcast({ deps: benchDeps, orgId }, draft.id, {});
    await drain(`${label} fan-out`, messages, async () => {
      const [created, waiting] = await Promise.all([db.message.count({ where: { broadcastId: draft.id } }), waitingJobs(queues['email-bulk'])]);
      return Math.min(created, waiting - waitingBefore);
    });
    const seconds = (performance.now() - started) / 1000;
    const parts = await stop();
    waitingBefore = await waitingJobs(queues['email-bulk']);
    const per = (s: number) => Math.round((s / messages) * 1000 * 1000) / 1000;
    return { ...Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, per(v)])), perSecond: Math.round(messages / seconds) };
  };
  try {
    await waitForWorker(queues.broadcasts);
    await fanOutTo('segment', { segmentId: segment.id }, contacts); // warm-up: the first compiles the code
    const bySegment = await fanOutTo('segment', { segmentId: segment.id }, contacts);
    const { topic, members } = await seedHalfTopic(deps, orgId, contacts);
    const byTopic = await fanOutTo('topic', { topicId: topic.id }, members);
    const entries = (prefix: string, parts: object) => Object.entries(parts).map(([k, v]) => [`${prefix}.${k}`, v]);
    return { contacts, topicMembers: members, ...Object.fromEntries([...entries('segment', bySegment), ...entries('topic', byTopic)]) };
  } finally {
    await stopProcess(fanOut);
    await closeQueues(queues);
  }
}
