import type { Deps } from './deps.ts';

/**
 * Runs `sweep` `graceMs` after this process finds Redis without its data: restarted empty, every job gone. A marker
 * key per `role` tells (SET NX succeeds only where it is missing), checked at start and at every reconnect, so the
 * lost jobs are found within `graceMs` rather than after STRANDED_JOB_AFTER_MS; among replicas one sets the marker
 * and sweeps. `graceMs` lets the work in flight at the restart finish first (its rows then look overdue no longer).
 * @example const watch = watchForEmptyRedis(deps, 'send-worker', 30_000, () => requeueStrandedMessages(deps, { overdueMs: 30_000 })); ...; watch.close();
 */
export function watchForEmptyRedis(deps: Pick<Deps, 'redis' | 'config' | 'logger'>, role: string, graceMs: number, sweep: () => Promise<unknown>) {
  const key = `${deps.config.redisPrefix}:data-present:${role}`;
  const timers = new Set<NodeJS.Timeout>();
  const runSweep = () => sweep().catch((error: unknown) => deps.logger.error({ err: error }, 'the sweep after Redis restarted empty failed; the periodic sweep will follow'));
  const check = () =>
    void deps.redis
      .set(key, new Date().toISOString(), 'NX')
      .then((set) => {
        if (set !== 'OK') return;
        deps.logger.warn({ graceMs, role }, 'Redis holds none of our data (new, or restarted empty): sweeping for lost jobs soon');
        const timer = setTimeout(() => {
          timers.delete(timer);
          void runSweep();
        }, graceMs);
        timer.unref(); // a stopping process leaves it to the periodic sweep
        timers.add(timer);
      })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not look for our data in Redis'));
  check();
  deps.redis.on('ready', check);
  return {
    close() {
      deps.redis.off('ready', check);
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
