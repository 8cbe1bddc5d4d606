import type { Lane } from '@tidings/queue';

/**
 * Group commit: calls that arrive together are run as ONE call of `runMany` (one statement, one round trip), each
 * caller still getting its own result or error.
 *
 * A call waits at most for the end of the current event-loop turn (setImmediate: microseconds), so a lone call is
 * not held back for company. Under load the groups grow by themselves: while `maxInFlight` groups are running, new
 * calls queue up and leave together as soon as one finishes, at most `maxSize` (by `sizeOf`) per group.
 * When a group of several fails, each of its calls is run again alone, so one caller's bad item (a foreign key gone
 * meanwhile) fails only that caller, and a failure that is nobody's in particular (the database away) reaches each.
 * @example const write = groupCommit((rows) => insertAll(rows), { maxSize: 500, maxInFlight: 2 }); await write(row);
 */
export function groupCommit<In, Out>(
  runMany: (items: In[]) => Promise<Out[]>,
  options: { maxSize: number; maxInFlight: number; sizeOf?: (item: In) => number },
): (item: In) => Promise<Out> {
  type Waiting = { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void };
  const sizeOf = options.sizeOf ?? (() => 1);
  let waiting: Waiting[] = [];
  let inFlight = 0;
  let isScheduled = false;

  const settle = async (group: Waiting[]) => {
    try {
      const outs = await runMany(group.map((w) => w.item));
      for (const [i, w] of group.entries()) w.resolve(outs[i]!);
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else await Promise.all(group.map((w) => runMany([w.item]).then(([out]) => w.resolve(out!), w.reject)));
    }
  };

  const flush = () => {
    isScheduled = false;
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      let size = 0;
      let count = 0;
      while (count < waiting.length && (count === 0 || size + sizeOf(waiting[count]!.item) <= options.maxSize)) {
        size += sizeOf(waiting[count]!.item);
        count += 1;
      }
      const group = waiting.slice(0, count);
      waiting = waiting.slice(count);
      inFlight += 1;
      void settle(group).finally(() => {
        inFlight -= 1;
        flush();
      });
    }
  };

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!isScheduled && inFlight < options.maxInFlight) {
        isScheduled = true;
        setImmediate(flush);
      }
    });
}

/**
 * groupCommit once per lane: each lane's calls gather in groups of their own, each lane with its own statement in
 * flight. Under a broadcast a send-worker has hundreds of bulk sends in flight, and one full group of their steps took
 * 90 to 170 ms: sharing the groups, a single send's claim and `sent` mark each waited behind two or three of them.
 * @example const steps = groupCommitByLane(runSteps, { maxSize: 200, maxInFlight: 1 }); await steps({ lane: 'bulk', ... });
 */
export function groupCommitByLane<In extends { lane: Lane }, Out>(
  runMany: (items: In[]) => Promise<Out[]>,
  options: { maxSize: number; maxInFlight: number; sizeOf?: (item: In) => number },
): (item: In) => Promise<Out> {
  const byLane = { transactional: groupCommit(runMany, options), bulk: groupCommit(runMany, options) };
  return (item) => byLane[item.lane](item);
}
